import { useState, type FormEvent } from 'react'
import { useTranslation } from 'react-i18next'
import { Navigate, useNavigate } from 'react-router'
import Alert from '@mui/material/Alert'
import Button from '@mui/material/Button'
import Paper from '@mui/material/Paper'
import Stack from '@mui/material/Stack'
import Typography from '@mui/material/Typography'
import { useNotify } from '../../components/feedback'
import { setCredentials } from '../../store/authSlice'
import { useAppDispatch, useAppSelector } from '../../store/hooks'
import { useFirstAccessMutation } from '../../store/generated/bemteviApi'
import { accountErrorText } from './errors'
import PasswordFields from './PasswordFields'
import { newPasswordErrors } from './validation'
import AuthScreen, { AuthBrand } from './AuthScreen'

/** First access: a user with a generated password chooses their own before anything else. */
export default function FirstAccessPage() {
  const { t, i18n } = useTranslation()
  const notify = useNotify()
  const dispatch = useAppDispatch()
  const navigate = useNavigate()
  const token = useAppSelector((s) => s.auth.authToken)
  const user = useAppSelector((s) => s.auth.authUser)
  const [choose, { isLoading, error }] = useFirstAccessMutation()
  const [password, setPassword] = useState('')
  const [confirmation, setConfirmation] = useState('')
  const [touched, setTouched] = useState(false)
  if (!token || !user) return <Navigate to="/login" replace />
  if (user.status !== 'first-access') return <Navigate to="/dashboard" replace />
  const errors = touched ? newPasswordErrors(password, confirmation) : {}

  const submit = async (event: FormEvent) => {
    event.preventDefault()
    setTouched(true)
    if (Object.keys(newPasswordErrors(password, confirmation)).length > 0) return
    try {
      await choose({ firstAccessRequest: { password, confirmation } }).unwrap()
      dispatch(setCredentials({ token, user: { ...user, status: 'active' } }))
      notify({ type: 'positive', message: t('accounts.firstAccess.done') })
      navigate('/dashboard', { replace: true })
    } catch {
      // shown below
    }
  }

  return (
    <AuthScreen>
      <Paper
        component="form"
        variant="outlined"
        className="login-card"
        onSubmit={(e: FormEvent) => void submit(e)}
        noValidate
        data-testid="first-access"
      >
        <Stack spacing={2}>
          <AuthBrand />
          <div>
            <Typography variant="h5" component="h1" sx={{ fontWeight: 700 }}>
              {t('accounts.firstAccess.title')}
            </Typography>
            <Typography color="text.secondary">{t('accounts.firstAccess.text')}</Typography>
          </div>
          <PasswordFields
            password={password}
            confirmation={confirmation}
            onPassword={setPassword}
            onConfirmation={setConfirmation}
            errors={errors}
            labels={{ password: t('accounts.firstAccess.password'), confirmation: t('accounts.firstAccess.confirmation') }}
            testid="first-access"
          />
          {error && (
            <Alert severity="error" data-testid="first-access-error">
              {accountErrorText(error, t, (k) => i18n.exists(k))}
            </Alert>
          )}
          <Button type="submit" variant="contained" size="large" fullWidth disabled={isLoading} data-testid="first-access-submit">
            {isLoading ? t('accounts.firstAccess.saving') : t('accounts.firstAccess.save')}
          </Button>
        </Stack>
      </Paper>
    </AuthScreen>
  )
}
