import { useState, type FormEvent } from 'react'
import { useTranslation } from 'react-i18next'
import { Link, useNavigate, useSearchParams } from 'react-router'
import { useBrand } from '../components/useBrand'
import { accountErrorText } from '../features/accounts/errors'
import GoogleButton from '../features/accounts/GoogleButton'
import '../features/accounts/accounts.css'
import { REDIRECT_PARAM, safeRedirect } from '../routes/redirect'
import { useGoogleSignInMutation, useSignInMutation, type LoginResponse } from '../store/generated/bemteviApi'
import { setCredentials } from '../store/authSlice'
import { useAppDispatch } from '../store/hooks'

// Sign-in accepts any 2+ letter ending: operator-created accounts such as the default
// admin@bemtevi.local must get in; the strict 2-4 letter rule applies where e-mails are registered.
export const EMAIL_PATTERN = /^[A-Za-z0-9._-]+@[A-Za-z0-9-]+(\.[A-Za-z0-9-]+)*\.[A-Za-z]{2,}$/

interface FieldErrors {
  email?: string
  password?: string
}

export default function LoginPage() {
  const { t, i18n } = useTranslation()
  const { brand } = useBrand()
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
      const answer = await login({ loginRequest: { email: email.trim(), password, domain_url: window.location.host } }).unwrap()
      signedIn(answer)
    } catch {
      // shown below from the mutation state
    }
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
      signedIn(await googleSignIn({ googleSignInRequest: { credential, domain_url: window.location.host } }).unwrap())
    } catch {
      // shown below from the mutation state
    }
  }

  return (
    <div className="login-page">
      {brand.loginBanner && (
        <div className="login-banner">
          <img src={brand.loginBanner} alt={t('login.bannerAlt')} />
        </div>
      )}
      <form className="login-card card" onSubmit={(e) => void submit(e)} noValidate>
        <div className="login-brand">
          {brand.horizontalLogo ? (
            <img src={brand.horizontalLogo} alt={brand.appTitle} className="brand-logo" />
          ) : (
            <span className="brand-title">{brand.appTitle}</span>
          )}
        </div>
        <h1>{t('login.title')}</h1>
        <p className="muted">{t('login.subtitle')}</p>

        <label className="form-field">
          <span>{t('login.email')}</span>
          <input
            type="email"
            name="email"
            autoComplete="username"
            value={email}
            onChange={(e) => setEmail(e.target.value)}
            aria-invalid={!!fieldErrors.email}
            aria-describedby={fieldErrors.email ? 'login-email-error' : undefined}
            data-testid="login-email"
          />
          {fieldErrors.email && (
            <small id="login-email-error" className="field-error">
              {fieldErrors.email}
            </small>
          )}
        </label>

        <label className="form-field">
          <span>{t('login.password')}</span>
          <input
            type="password"
            name="password"
            autoComplete="current-password"
            value={password}
            onChange={(e) => setPassword(e.target.value)}
            aria-invalid={!!fieldErrors.password}
            aria-describedby={fieldErrors.password ? 'login-password-error' : undefined}
            data-testid="login-password"
          />
          {fieldErrors.password && (
            <small id="login-password-error" className="field-error">
              {fieldErrors.password}
            </small>
          )}
        </label>

        {error && (
          <div className="alert alert-error" role="alert" data-testid="login-error">
            {accountErrorText(error, t, (k) => i18n.exists(k))}
          </div>
        )}

        <button type="submit" className="btn btn-primary btn-block" disabled={isLoading} data-testid="login-submit">
          {isLoading ? t('login.submitting') : t('login.submit')}
        </button>
        <GoogleButton onCredential={(credential) => void withGoogle(credential)} />
        <div className="accounts-links">
          <Link to="/forgot-password" data-testid="login-forgot">
            {t('accounts.login.forgot')}
          </Link>
          <span>
            {t('accounts.login.noAccount')}{' '}
            <Link to="/create-account" data-testid="login-create-account">
              {t('accounts.login.create')}
            </Link>
          </span>
        </div>
      </form>
    </div>
  )
}
