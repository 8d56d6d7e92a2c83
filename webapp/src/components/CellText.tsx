import { useRef, useState, type ReactNode } from 'react'
import Box from '@mui/material/Box'
import Tooltip from '@mui/material/Tooltip'

/** True when the element's text does not fit its box (cut sideways or below its last line). */
function isCut(el: HTMLElement): boolean {
  return el.scrollWidth > el.clientWidth + 1 || el.scrollHeight > el.clientHeight + 1
}

/**
 * A text that never overflows its cell unseen: `lines` lines at most (a word longer than the cell breaks,
 * or, on one line, ends in an ellipsis), and when it is cut the whole text shows on hover, focus or a long
 * press (MUI's tooltip).
 */
export function CellText({ text, lines = 3, testId }: { text: ReactNode; lines?: number; testId?: string }) {
  const ref = useRef<HTMLSpanElement>(null)
  const [cut, setCut] = useState(false)
  const measure = () => {
    if (ref.current) setCut(isCut(ref.current))
  }
  const oneLine = lines <= 1
  return (
    <Tooltip title={cut ? text : ''} enterTouchDelay={300}>
      <Box
        component="span"
        ref={ref}
        onMouseEnter={measure}
        onFocus={measure}
        onTouchStart={measure}
        data-testid={testId}
        data-cut={cut || undefined}
        sx={{
          display: oneLine ? 'block' : '-webkit-box',
          width: '100%',
          minWidth: 0,
          overflow: 'hidden',
          textOverflow: 'ellipsis',
          textAlign: 'inherit',
          ...(oneLine
            ? { whiteSpace: 'nowrap' }
            : { WebkitLineClamp: lines, WebkitBoxOrient: 'vertical', whiteSpace: 'normal', overflowWrap: 'anywhere' }),
        }}
      >
        {text}
      </Box>
    </Tooltip>
  )
}
