import { useState, type FormEvent } from 'react'
import { useTranslation } from 'react-i18next'
import { useNotify } from '../../components/feedback'
import Field from '../../components/FormField'
import { userErrorText } from '../../components/users/serverError'
import { passwordErrors, type PasswordForm } from '../../lib/users/validation'
import { useChangeMyPasswordMutation } from '../../store/generated/bemteviApi'

const EMPTY: PasswordForm = { currentPassword: '', newPassword: '', confirmation: '' }

/** Change password: current, new and confirmation required; the policy of section 5. */
export default function PasswordCard() {
  const { t, i18n } = useTranslation()
  const notify = useNotify()
  const [form, setForm] = useState<PasswordForm>(EMPTY)
  const [errors, setErrors] = useState<Record<string, string>>({})
  const [change, { isLoading, error, reset }] = useChangeMyPasswordMutation()
  const err = (field: string) => (errors[field] ? t(errors[field]) : undefined)

  async function submit(event: FormEvent) {
    event.preventDefault()
    const found = passwordErrors(form)
    setErrors(found)
    if (Object.keys(found).length > 0) return
    const result = await change({ changePasswordRequest: form })
    if ('data' in result) {
      setForm(EMPTY)
      reset()
      notify({ type: 'positive', message: t('myAccount.passwordChanged') })
    }
  }

  return (
    <form className="form-grid" onSubmit={submit} noValidate data-testid="password-form">
      <h3 className="form-wide">{t('myAccount.changePassword')}</h3>
      <Field label={t('myAccount.currentPassword')} error={err('currentPassword')}>
        <input
          type="password"
          autoComplete="current-password"
          value={form.currentPassword}
          onChange={(e) => setForm({ ...form, currentPassword: e.target.value })}
          data-testid="password-current"
        />
      </Field>
      <Field label={t('myAccount.newPassword')} error={err('newPassword')}>
        <input
          type="password"
          autoComplete="new-password"
          value={form.newPassword}
          onChange={(e) => setForm({ ...form, newPassword: e.target.value })}
          data-testid="password-new"
        />
      </Field>
      <Field label={t('myAccount.confirmation')} error={err('confirmation')}>
        <input
          type="password"
          autoComplete="new-password"
          value={form.confirmation}
          onChange={(e) => setForm({ ...form, confirmation: e.target.value })}
          data-testid="password-confirmation"
        />
      </Field>
      <p className="muted small form-wide">{t('myAccount.passwordHint')}</p>
      {error && (
        <div className="alert alert-error form-wide" role="alert" data-testid="password-error">
          {userErrorText(error, t, (k) => i18n.exists(k))}
        </div>
      )}
      <div className="actions form-wide">
        <button type="submit" className="btn btn-primary" disabled={isLoading} data-testid="password-submit">
          {isLoading ? t('myAccount.saving') : t('myAccount.changePassword')}
        </button>
      </div>
    </form>
  )
}
