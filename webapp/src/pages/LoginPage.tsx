import { useState, type FormEvent } from 'react'
import { useTranslation } from 'react-i18next'
import { Link as RouterLink, useNavigate, useSearchParams } from 'react-router'
import Alert from '@mui/material/Alert'
import Button from '@mui/material/Button'
import Link from '@mui/material/Link'
import Paper from '@mui/material/Paper'
import Stack from '@mui/material/Stack'
import TextField from '@mui/material/TextField'
import Typography from '@mui/material/Typography'
import AuthScreen, { AuthBrand } from '../features/accounts/AuthScreen'
import { accountErrorText } from '../features/accounts/errors'
import GoogleButton from '../features/accounts/GoogleButton'
import { REDIRECT_PARAM, safeRedirect } from '../routes/redirect'
import { EMAIL_PATTERN } from '../lib/documents'
import { useGoogleSignInMutation, useSignInMutation, type LoginResponse } from '../store/generated/bemteviApi'
import { setCredentials } from '../store/authSlice'
import { useAppDispatch } from '../store/hooks'

// Sign-in accepts any 2+ letter ending: operator-created accounts such as the default
// admin@bemtevi.local must get in; the strict 2-4 letter rule applies where e-mails are registered.

const isChallenge = (error: unknown) =>
  (error as { data?: { code?: string } } | undefined)?.data?.code === 'two_factor_required'

interface FieldErrors {
  email?: string
  password?: string
}

export default function LoginPage() {
  const { t, i18n } = useTranslation()
  const dispatch = useAppDispatch()
  const navigate = useNavigate()
  const [params] = useSearchParams()
  const [login, { isLoading, error: loginError, reset }] = useSignInMutation()
  const [googleSignIn, { error: googleError, reset: resetGoogle }] = useGoogleSignInMutation()
  const error = loginError ?? googleError
  const [email, setEmail] = useState('')
  const [password, setPassword] = useState('')
  const [touched, setTouched] = useState(false)

  const validate = (): FieldErrors => {
    const errors: FieldErrors = {}
    if (!email.trim()) errors.email = t('login.emailRequired')
    else if (!EMAIL_PATTERN.test(email.trim())) errors.email = t('login.emailInvalid')
    if (!password) errors.password = t('login.passwordRequired')
    return errors
  }
  const fieldErrors = touched ? validate() : {}

  const submit = async (event: FormEvent) => {
    event.preventDefault()
    setTouched(true)
    reset()
    if (Object.keys(validate()).length > 0) return
    try {
      const answer = await login({
        loginRequest: { email: email.trim(), password, domain_url: window.location.host, locale: locale() },
      }).unwrap()
      signedIn(answer)
    } catch (e) {
      toCode(e)
    }
  }

  const locale = () => (i18n.language === 'en-US' ? 'en-US' : 'pt-BR')

  // A group with two-step verification: the password was right and a code went by mail; type it on verify-code.
  const toCode = (e: unknown) => {
    const body = (e as { data?: { code?: string; challengeId?: string; resendAfter?: number } } | undefined)?.data
    if (body?.code !== 'two_factor_required' || !body.challengeId) return // shown below from the mutation state
    const next = new URLSearchParams({ challenge: body.challengeId })
    const redirect = params.get(REDIRECT_PARAM)
    if (redirect) next.set(REDIRECT_PARAM, redirect)
    navigate(`/verify-code?${next.toString()}`, { state: { resendAfter: body.resendAfter ?? null } })
  }

  // A user at first access chooses a password before going anywhere.
  const signedIn = (answer: LoginResponse) => {
    dispatch(setCredentials({ token: answer.token, user: answer.data }))
    if (answer.data.status === 'first-access') navigate('/first-access', { replace: true })
    else navigate(safeRedirect(params.get(REDIRECT_PARAM)), { replace: true })
  }

  const withGoogle = async (credential: string) => {
    reset()
    resetGoogle()
    try {
      signedIn(
        await googleSignIn({ googleSignInRequest: { credential, domain_url: window.location.host, locale: locale() } }).unwrap(),
      )
    } catch (e) {
      toCode(e)
    }
  }

  return (
    <AuthScreen>
      <Paper component="form" variant="outlined" className="login-card" onSubmit={(e: FormEvent) => void submit(e)} noValidate>
        <Stack spacing={2}>
          <AuthBrand />
          <div>
            <Typography variant="h5" component="h1" sx={{ fontWeight: 700 }}>
              {t('login.title')}
            </Typography>
            <Typography color="text.secondary">{t('login.subtitle')}</Typography>
          </div>
          <TextField
            type="email"
            name="email"
            label={t('login.email')}
            autoComplete="username"
            value={email}
            onChange={(e) => setEmail(e.target.value)}
            error={!!fieldErrors.email}
            helperText={fieldErrors.email}
            id="login-email"
            fullWidth
            slotProps={{ htmlInput: { 'data-testid': 'login-email' } }}
          />
          <TextField
            type="password"
            name="password"
            label={t('login.password')}
            autoComplete="current-password"
            value={password}
            onChange={(e) => setPassword(e.target.value)}
            error={!!fieldErrors.password}
            helperText={fieldErrors.password}
            id="login-password"
            fullWidth
            slotProps={{ htmlInput: { 'data-testid': 'login-password' } }}
          />
          <Link component={RouterLink} to="/forgot-password" data-testid="login-forgot" sx={{ alignSelf: 'flex-end' }} variant="body2">
            {t('accounts.login.forgot')}
          </Link>
          {error && !isChallenge(error) && (
            <Alert severity="error" data-testid="login-error">
              {accountErrorText(error, t, (k) => i18n.exists(k))}
            </Alert>
          )}
          <Button type="submit" variant="contained" size="large" fullWidth disabled={isLoading} data-testid="login-submit">
            {isLoading ? t('login.submitting') : t('login.submit')}
          </Button>
          <GoogleButton onCredential={(credential) => void withGoogle(credential)} />
          <Typography variant="body2" sx={{ textAlign: 'center' }}>
            {t('accounts.login.noAccount')}{' '}
            <Link component={RouterLink} to="/create-account" data-testid="login-create-account">
              {t('accounts.login.create')}
            </Link>
          </Typography>
        </Stack>
      </Paper>
    </AuthScreen>
  )
}
