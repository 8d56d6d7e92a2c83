import { useTranslation } from 'react-i18next'
import TextField from '@mui/material/TextField'

interface Props {
  password: string
  confirmation: string
  onPassword: (value: string) => void
  onConfirmation: (value: string) => void
  errors: { password?: string; confirmation?: string }
  labels: { password: string; confirmation: string }
  testid: string
}

/** A new password and its confirmation, with the policy hint and the spec's messages. */
export default function PasswordFields({ password, confirmation, onPassword, onConfirmation, errors, labels, testid }: Props) {
  const { t } = useTranslation()
  return (
    <>
      <TextField
        type="password"
        label={labels.password}
        autoComplete="new-password"
        value={password}
        onChange={(e) => onPassword(e.target.value)}
        error={!!errors.password}
        helperText={errors.password ? t(errors.password) : t('accounts.passwordHint')}
        id={`${testid}-password`}
        fullWidth
        slotProps={{ htmlInput: { 'data-testid': `${testid}-password` } }}
      />
      <TextField
        type="password"
        label={labels.confirmation}
        autoComplete="new-password"
        value={confirmation}
        onChange={(e) => onConfirmation(e.target.value)}
        error={!!errors.confirmation}
        helperText={errors.confirmation ? t(errors.confirmation) : undefined}
        id={`${testid}-confirmation`}
        fullWidth
        slotProps={{ htmlInput: { 'data-testid': `${testid}-confirmation` } }}
      />
    </>
  )
}
