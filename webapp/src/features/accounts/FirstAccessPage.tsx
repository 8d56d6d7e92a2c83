import { useState, type FormEvent } from 'react'
import { useTranslation } from 'react-i18next'
import { Navigate, useNavigate } from 'react-router'
import { useNotify } from '../../components/feedback'
import { setCredentials } from '../../store/authSlice'
import { useAppDispatch, useAppSelector } from '../../store/hooks'
import { useFirstAccessMutation } from '../../store/generated/bemteviApi'
import { accountErrorText } from './errors'
import PasswordFields from './PasswordFields'
import { newPasswordErrors } from './validation'
import './accounts.css'

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
    <div className="login-page">
      <form className="login-card card accounts-card" onSubmit={(e) => void submit(e)} noValidate data-testid="first-access">
        <h1>{t('accounts.firstAccess.title')}</h1>
        <p className="muted">{t('accounts.firstAccess.text')}</p>
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
          <div className="alert alert-error" role="alert" data-testid="first-access-error">
            {accountErrorText(error, t, (k) => i18n.exists(k))}
          </div>
        )}
        <button type="submit" className="btn btn-primary btn-block" disabled={isLoading} data-testid="first-access-submit">
          {isLoading ? t('accounts.firstAccess.saving') : t('accounts.firstAccess.save')}
        </button>
      </form>
    </div>
  )
}
