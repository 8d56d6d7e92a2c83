import type { ReactNode } from 'react'
import Stack from '@mui/material/Stack'
import Typography from '@mui/material/Typography'

/** Nothing to show yet: what that means and, when there is one, the action that fills the screen. */
export default function EmptyState({ text, action, testId }: { text: ReactNode; action?: ReactNode; testId?: string }) {
  return (
    <Stack spacing={1.5} sx={{ py: 3, px: 1, alignItems: 'center', textAlign: 'center' }} data-testid={testId}>
      <Typography color="text.secondary" sx={{ maxWidth: 520 }} data-testid={testId ? `${testId}-text` : undefined}>
        {text}
      </Typography>
      {action}
    </Stack>
  )
}
