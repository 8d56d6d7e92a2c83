import { useState, type FormEvent } from 'react'
import { useTranslation } from 'react-i18next'
import { useNotify } from '../../components/feedback'
import Alert from '@mui/material/Alert'
import Box from '@mui/material/Box'
import Button from '@mui/material/Button'
import Typography from '@mui/material/Typography'
import { TextInput } from '../../components/form/fields'
import { WIDE } from '../../components/form/formHooks'
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
    <Box
      component="form"
      onSubmit={submit}
      noValidate
      data-testid="password-form"
      sx={{ display: 'grid', gap: 2, my: 2, gridTemplateColumns: { xs: 'minmax(0, 1fr)', sm: 'repeat(2, minmax(0, 1fr))' } }}
    >
      <Typography variant="h6" component="h3" sx={WIDE}>
        {t('myAccount.changePassword')}
      </Typography>
      <TextInput
        type="password"
        autoComplete="current-password"
        label={t('myAccount.currentPassword')}
        value={form.currentPassword}
        onChange={(v) => setForm({ ...form, currentPassword: v })}
        error={err('currentPassword')}
        testId="password-current"
        wide
      />
      <TextInput
        type="password"
        autoComplete="new-password"
        label={t('myAccount.newPassword')}
        value={form.newPassword}
        onChange={(v) => setForm({ ...form, newPassword: v })}
        error={err('newPassword')}
        testId="password-new"
      />
      <TextInput
        type="password"
        autoComplete="new-password"
        label={t('myAccount.confirmation')}
        value={form.confirmation}
        onChange={(v) => setForm({ ...form, confirmation: v })}
        error={err('confirmation')}
        testId="password-confirmation"
      />
      <Typography variant="body2" color="text.secondary" sx={WIDE}>
        {t('myAccount.passwordHint')}
      </Typography>
      {error && (
        <Alert severity="error" role="alert" sx={WIDE} data-testid="password-error">
          {userErrorText(error, t, (k) => i18n.exists(k))}
        </Alert>
      )}
      <Box sx={WIDE}>
        <Button type="submit" variant="contained" disabled={isLoading} data-testid="password-submit">
          {isLoading ? t('myAccount.saving') : t('myAccount.changePassword')}
        </Button>
      </Box>
    </Box>
  )
}
