import { useTranslation } from 'react-i18next'

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
      <label className="form-field">
        <span>{labels.password}</span>
        <input
          type="password"
          autoComplete="new-password"
          value={password}
          onChange={(e) => onPassword(e.target.value)}
          aria-invalid={!!errors.password}
          data-testid={`${testid}-password`}
        />
        {errors.password && <small className="field-error">{t(errors.password)}</small>}
      </label>
      <p className="accounts-hint">{t('accounts.passwordHint')}</p>
      <label className="form-field">
        <span>{labels.confirmation}</span>
        <input
          type="password"
          autoComplete="new-password"
          value={confirmation}
          onChange={(e) => onConfirmation(e.target.value)}
          aria-invalid={!!errors.confirmation}
          data-testid={`${testid}-confirmation`}
        />
        {errors.confirmation && <small className="field-error">{t(errors.confirmation)}</small>}
      </label>
    </>
  )
}
