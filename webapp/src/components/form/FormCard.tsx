import type { FormEvent, ReactNode } from 'react'
import Paper from '@mui/material/Paper'

/**
 * The card a form is laid in: one column on phones and two from 600 px, submitted without the browser's own
 * checks (the screens check and say why themselves).
 */
export default function FormCard({ onSubmit, testId, children }: { onSubmit: () => unknown; testId: string; children: ReactNode }) {
  return (
    <Paper
      component="form"
      variant="outlined"
      noValidate
      data-testid={testId}
      onSubmit={(event: FormEvent) => {
        event.preventDefault()
        void onSubmit()
      }}
      sx={{ p: { xs: 2, sm: 3 }, display: 'grid', gap: 2, gridTemplateColumns: { xs: 'minmax(0, 1fr)', sm: 'repeat(2, minmax(0, 1fr))' } }}
    >
      {children}
    </Paper>
  )
}
