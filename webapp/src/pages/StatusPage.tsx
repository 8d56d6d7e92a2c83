import type { ReactNode } from 'react'
import { Link } from 'react-router'
import Button from '@mui/material/Button'
import Stack from '@mui/material/Stack'
import Typography from '@mui/material/Typography'

/** The error pages' one face: a code, a title, what happened and the way on. */
export default function StatusPage({
  code,
  title,
  text,
  to,
  action,
  testId,
}: {
  code?: ReactNode
  title: ReactNode
  text: ReactNode
  to: string
  action: ReactNode
  testId: string
}) {
  return (
    <Stack spacing={2} sx={{ alignItems: 'center', textAlign: 'center', py: { xs: 4, sm: 8 }, px: 2 }} data-testid={testId}>
      {code && (
        <Typography component="p" sx={{ fontSize: { xs: '3rem', sm: '4rem' }, fontWeight: 800, color: 'primary.main', lineHeight: 1 }} className="status-code">
          {code}
        </Typography>
      )}
      <Typography variant="h5" component="h1" sx={{ fontWeight: 700 }}>
        {title}
      </Typography>
      <Typography color="text.secondary">{text}</Typography>
      <Button component={Link} to={to} variant="contained">
        {action}
      </Button>
    </Stack>
  )
}
