import type { ReactNode } from 'react'
import { useTranslation } from 'react-i18next'
import Alert from '@mui/material/Alert'
import Box from '@mui/material/Box'
import Button from '@mui/material/Button'
import Typography from '@mui/material/Typography'
import FormCard from '../../components/form/FormCard'
import { WIDE } from '../../components/form/formHooks'

/** The buttons under a step, wrapping on a phone. */
export function StepActions({ children }: { children: ReactNode }) {
  return <Box sx={{ ...WIDE, display: 'flex', gap: 1, flexWrap: 'wrap', mt: 2 }}>{children}</Box>
}

/** What every step that is a form is given by the page: its save, and where a refusal of it is said. */
export type StepFormProps = {
  onSubmit: () => unknown
  saving: boolean
  /** The last save's refusal, in the reader's language. */
  failure: string | null
}

/** A step that is a form (company, permissions): laid out as the app's form pages, its refusal over its buttons. */
export default function SetupStepForm({
  hint,
  onSubmit,
  saving,
  ready,
  failure,
  onBack,
  testId,
  children,
}: StepFormProps & {
  hint: string
  ready: boolean
  onBack?: () => void
  testId: string
  children: ReactNode
}) {
  const { t } = useTranslation()
  return (
    <FormCard onSubmit={onSubmit} testId={testId}>
      <Typography variant="body2" color="text.secondary" sx={WIDE}>
        {hint}
      </Typography>
      {children}
      {failure && (
        <Alert severity="error" role="alert" data-testid="setup-error" sx={WIDE}>
          {failure}
        </Alert>
      )}
      <Box sx={{ ...WIDE, display: 'flex', gap: 1, flexWrap: 'wrap' }}>
        <Button type="submit" variant="contained" disabled={saving || !ready} data-testid="setup-next">
          {saving ? t('customers.setup.saving') : t('customers.setup.next')}
        </Button>
        {onBack && (
          <Button onClick={onBack} disabled={saving}>
            {t('customers.setup.back')}
          </Button>
        )}
      </Box>
    </FormCard>
  )
}
