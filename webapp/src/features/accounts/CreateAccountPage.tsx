import { useState, type FormEvent } from 'react'
import { useTranslation } from 'react-i18next'
import { Link, useNavigate } from 'react-router'
import { setCredentials } from '../../store/authSlice'
import { useAppDispatch } from '../../store/hooks'
import { useCreateAccountMutation } from '../../store/generated/bemteviApi'
import { accountErrorText } from './errors'
import PasswordFields from './PasswordFields'
import { signUpErrors, type SignUpValues } from './validation'
import './accounts.css'

const EMPTY: SignUpValues = {
  name: '',
  lastName: '',
  email: '',
  companyName: '',
  phone: '',
  password: '',
  confirmation: '',
  acceptTerms: false,
}

type TextField = 'name' | 'lastName' | 'email' | 'companyName' | 'phone'
const TEXT_FIELDS: { field: TextField; type: string; autoComplete: string }[] = [
  { field: 'name', type: 'text', autoComplete: 'given-name' },
  { field: 'lastName', type: 'text', autoComplete: 'family-name' },
  { field: 'email', type: 'email', autoComplete: 'email' },
  { field: 'companyName', type: 'text', autoComplete: 'organization' },
  { field: 'phone', type: 'tel', autoComplete: 'tel' },
]

/** Registration (spec section 5): a new company and its owner, signed in on success. */
export default function CreateAccountPage() {
  const { t, i18n } = useTranslation()
  const dispatch = useAppDispatch()
  const navigate = useNavigate()
  const [createAccount, { isLoading, error }] = useCreateAccountMutation()
  const [values, setValues] = useState<SignUpValues>(EMPTY)
  const [touched, setTouched] = useState(false)
  const errors = touched ? signUpErrors(values) : {}
  const set = <K extends keyof SignUpValues>(field: K, value: SignUpValues[K]) => setValues((v) => ({ ...v, [field]: value }))

  const submit = async (event: FormEvent) => {
    event.preventDefault()
    setTouched(true)
    if (Object.keys(signUpErrors(values)).length > 0) return
    try {
      const answer = await createAccount({
        createAccountRequest: {
          ...values,
          email: values.email.trim(),
          domain_url: window.location.host,
          locale: i18n.language === 'en-US' ? 'en-US' : 'pt-BR',
        },
      }).unwrap()
      // Users expect to be inside after signing up: the new owner is signed in at once.
      dispatch(setCredentials({ token: answer.token, user: answer.data }))
      navigate('/dashboard', { replace: true })
    } catch {
      // shown below
    }
  }

  return (
    <div className="login-page">
      <form className="login-card card accounts-card" onSubmit={(e) => void submit(e)} noValidate data-testid="create-account-form">
        <h1>{t('accounts.createAccount.title')}</h1>
        <p className="muted">{t('accounts.createAccount.subtitle')}</p>
        <div className="accounts-grid">
          {TEXT_FIELDS.map(({ field, type, autoComplete }) => (
            <label className="form-field" key={field}>
              <span>{t(`accounts.createAccount.${field}`)}</span>
              <input
                type={type}
                name={field}
                autoComplete={autoComplete}
                value={values[field]}
                onChange={(e) => set(field, e.target.value)}
                aria-invalid={!!errors[field]}
                data-testid={`signup-${field}`}
              />
              {errors[field] && <small className="field-error">{t(errors[field])}</small>}
            </label>
          ))}
        </div>
        <PasswordFields
          password={values.password}
          confirmation={values.confirmation}
          onPassword={(v) => set('password', v)}
          onConfirmation={(v) => set('confirmation', v)}
          errors={errors}
          labels={{ password: t('accounts.createAccount.password'), confirmation: t('accounts.createAccount.confirmation') }}
          testid="signup"
        />
        <label className="accounts-terms">
          <input
            type="checkbox"
            checked={values.acceptTerms}
            onChange={(e) => set('acceptTerms', e.target.checked)}
            data-testid="signup-terms"
          />
          <span>
            {t('accounts.createAccount.acceptTerms')}{' '}
            <Link to="/terms-of-use" target="_blank" rel="noopener">
              {t('accounts.createAccount.terms')}
            </Link>
          </span>
        </label>
        {errors.acceptTerms && <small className="field-error">{t(errors.acceptTerms)}</small>}
        {error && (
          <div className="alert alert-error" role="alert" data-testid="signup-error">
            {accountErrorText(error, t, (k) => i18n.exists(k))}
          </div>
        )}
        <button type="submit" className="btn btn-primary btn-block" disabled={isLoading} data-testid="signup-submit">
          {isLoading ? t('accounts.createAccount.submitting') : t('accounts.createAccount.submit')}
        </button>
        <div className="accounts-links">
          <span>
            {t('accounts.createAccount.haveAccount')} <Link to="/login">{t('accounts.createAccount.signIn')}</Link>
          </span>
        </div>
      </form>
    </div>
  )
}
