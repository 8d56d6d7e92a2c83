import { useEffect, useRef, useState, type FormEvent } from 'react'
import { useTranslation } from 'react-i18next'
import { Link as RouterLink, useLocation, useNavigate, useParams } from 'react-router'
import Alert from '@mui/material/Alert'
import Button from '@mui/material/Button'
import Link from '@mui/material/Link'
import Paper from '@mui/material/Paper'
import Stack from '@mui/material/Stack'
import TextField from '@mui/material/TextField'
import Typography from '@mui/material/Typography'
import { useNotify } from '../../components/feedback'
import {
  useRedefinePasswordMutation,
  useRequestRecoveryMutation,
  useVerifyCodeMutation,
  type RecoveryTicketData,
} from '../../store/generated/bemteviApi'
import { accountErrorText } from './errors'
import PasswordFields from './PasswordFields'
import { STRICT_EMAIL, newPasswordErrors } from './validation'
import AuthScreen, { AuthBrand } from './AuthScreen'

type Step = 'request' | 'email' | 'code' | 'redefine'
const STEPS: Step[] = ['request', 'email', 'code', 'redefine']
const STORAGE_KEY = 'passwordRecovery'

interface Saved extends Partial<RecoveryTicketData> {
  email?: string
  code?: string
  verified?: boolean
}

function load(): Saved {
  try {
    return JSON.parse(sessionStorage.getItem(STORAGE_KEY) ?? '{}') as Saved
  } catch {
    return {}
  }
}

function save(value: Saved | null): void {
  if (value) sessionStorage.setItem(STORAGE_KEY, JSON.stringify(value))
  else sessionStorage.removeItem(STORAGE_KEY)
}

/**
 * The forgot-password flow as one screen in four steps (request recovery, check e-mail, enter
 * code, redefine password), on the routes forgot-password, verify-code/:code?/:uniqueKey?/:id?
 * (the mail's link: prefilled and verified at once) and redefine-new-password.
 */
export default function RecoveryPage() {
  const { t, i18n } = useTranslation()
  const notify = useNotify()
  const navigate = useNavigate()
  const location = useLocation()
  const params = useParams()
  const exists = (k: string) => i18n.exists(k)
  const fromLink = !!(params.code && params.uniqueKey && params.id)
  const [saved, setSaved] = useState<Saved>(() =>
    fromLink ? { code: params.code, uniqueKey: params.uniqueKey, id: params.id } : load(),
  )
  const initial: Step = location.pathname.startsWith('/redefine-new-password')
    ? 'redefine'
    : location.pathname.startsWith('/verify-code')
      ? 'code'
      : 'request'
  const [step, setStep] = useState<Step>(initial)
  const [email, setEmail] = useState(saved.email ?? '')
  const [code, setCode] = useState(saved.code ?? '')
  const [password, setPassword] = useState('')
  const [confirmation, setConfirmation] = useState('')
  const [touched, setTouched] = useState(false)
  const [request, requestState] = useRequestRecoveryMutation()
  const [verify, verifyState] = useVerifyCodeMutation()
  const [redefine, redefineState] = useRedefinePasswordMutation()
  const autoVerified = useRef(false)

  const remember = (value: Saved) => {
    setSaved(value)
    save(value)
  }

  const doVerify = async (value: string, ticket: Saved) => {
    if (!ticket.id || !ticket.uniqueKey) return
    try {
      await verify({ verifyCodeRequest: { code: value.trim(), uniqueKey: ticket.uniqueKey, id: ticket.id } }).unwrap()
      remember({ ...ticket, code: value.trim(), verified: true })
      notify({ type: 'positive', message: t('accounts.recovery.codeActive') })
      // The password form belongs to the redefine-new-password route's own mount (it reads the
      // verified ticket back from the session). Showing it here first would let someone type
      // into a form that the route change then replaces with an empty one.
      navigate('/redefine-new-password', { replace: true })
    } catch {
      // shown below
    }
  }

  // The mail's link carries code, key and id: verify at once.
  useEffect(() => {
    if (fromLink && !autoVerified.current) {
      autoVerified.current = true
      void doVerify(params.code ?? '', saved)
    }
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [])

  const submitRequest = async (event: FormEvent) => {
    event.preventDefault()
    setTouched(true)
    if (!STRICT_EMAIL.test(email.trim())) return
    try {
      const answer = await request({
        recoveryRequest: {
          email: email.trim(),
          domain_url: window.location.host,
          locale: i18n.language === 'en-US' ? 'en-US' : 'pt-BR',
        },
      }).unwrap()
      remember({ ...answer.data, email: email.trim() })
      setTouched(false)
      setStep('email')
    } catch {
      // shown below
    }
  }

  const submitCode = (event: FormEvent) => {
    event.preventDefault()
    setTouched(true)
    if (!/^\d{6}$/.test(code.trim())) return
    void doVerify(code, saved)
  }

  const passwordErrors = touched ? newPasswordErrors(password, confirmation) : {}
  const submitPassword = async (event: FormEvent) => {
    event.preventDefault()
    setTouched(true)
    if (Object.keys(newPasswordErrors(password, confirmation)).length > 0) return
    if (!saved.id || !saved.uniqueKey || !saved.code) return
    try {
      await redefine({
        redefinePasswordRequest: { id: saved.id, uniqueKey: saved.uniqueKey, code: saved.code, password, confirmation },
      }).unwrap()
      save(null)
      notify({ type: 'positive', message: t('accounts.recovery.done') })
      navigate('/login', { replace: true })
    } catch {
      // shown below
    }
  }

  const missingTicket = (step === 'code' || step === 'redefine') && (!saved.id || !saved.uniqueKey)
  const error = step === 'request' ? requestState.error : step === 'redefine' ? redefineState.error : verifyState.error
  const stepIndex = STEPS.indexOf(step)

  return (
    <AuthScreen>
      <Paper variant="outlined" className="login-card accounts-card" data-testid="recovery">
        <Stack spacing={2}>
          <AuthBrand />
          <Typography variant="h5" component="h1" sx={{ fontWeight: 700 }}>
            {step === 'redefine' ? t('accounts.recovery.redefineTitle') : t('accounts.recovery.title')}
          </Typography>
          <ol className="accounts-steps">
            {STEPS.map((s, i) => (
              <li key={s} className={i === stepIndex ? 'active' : i < stepIndex ? 'done' : ''} aria-current={i === stepIndex ? 'step' : undefined}>
                {t(`accounts.recovery.steps.${s}`)}
              </li>
            ))}
          </ol>

          {missingTicket ? (
            <>
              <Typography>{t('accounts.recovery.noTicket')}</Typography>
              <Link component={RouterLink} to="/forgot-password" onClick={() => setStep('request')}>
                {t('accounts.recovery.again')}
              </Link>
            </>
          ) : step === 'request' ? (
            <Stack component="form" spacing={2} onSubmit={(e: FormEvent) => void submitRequest(e)} noValidate>
              <Typography color="text.secondary">{t('accounts.recovery.requestText')}</Typography>
              <TextField
                type="email"
                label={t('accounts.recovery.email')}
                autoComplete="email"
                value={email}
                onChange={(e) => setEmail(e.target.value)}
                error={touched && !STRICT_EMAIL.test(email.trim())}
                helperText={touched && !STRICT_EMAIL.test(email.trim()) ? t('accounts.invalidEmail') : undefined}
                id="recovery-email"
                fullWidth
                slotProps={{ htmlInput: { 'data-testid': 'recovery-email' } }}
              />
              <Button type="submit" variant="contained" size="large" fullWidth disabled={requestState.isLoading} data-testid="recovery-send">
                {requestState.isLoading ? t('accounts.recovery.sending') : t('accounts.recovery.send')}
              </Button>
            </Stack>
          ) : step === 'email' ? (
            <>
              <Typography data-testid="recovery-check-email">{t('accounts.recovery.checkEmail', { email: saved.email })}</Typography>
              <Button variant="contained" size="large" fullWidth onClick={() => setStep('code')} data-testid="recovery-have-code">
                {t('accounts.recovery.haveCode')}
              </Button>
            </>
          ) : step === 'code' ? (
            <Stack component="form" spacing={2} onSubmit={submitCode} noValidate>
              <TextField
                className="accounts-code"
                label={t('accounts.recovery.code')}
                autoComplete="one-time-code"
                value={code}
                onChange={(e) => setCode(e.target.value.replace(/\D/g, ''))}
                error={touched && !/^\d{6}$/.test(code.trim())}
                helperText={touched && !/^\d{6}$/.test(code.trim()) ? t('errors.invalid_code') : undefined}
                id="recovery-code"
                fullWidth
                slotProps={{ htmlInput: { inputMode: 'numeric', maxLength: 6, 'data-testid': 'recovery-code' } }}
              />
              <Button type="submit" variant="contained" size="large" fullWidth disabled={verifyState.isLoading || verifyState.isSuccess} data-testid="recovery-verify">
                {verifyState.isLoading ? t('accounts.recovery.verifying') : t('accounts.recovery.verify')}
              </Button>
            </Stack>
          ) : (
            <Stack component="form" spacing={2} onSubmit={(e: FormEvent) => void submitPassword(e)} noValidate>
              {saved.verified && (
                <Alert severity="success" data-testid="recovery-code-active">
                  {t('accounts.recovery.codeActive')}
                </Alert>
              )}
              <PasswordFields
                password={password}
                confirmation={confirmation}
                onPassword={setPassword}
                onConfirmation={setConfirmation}
                errors={passwordErrors}
                labels={{ password: t('accounts.recovery.newPassword'), confirmation: t('accounts.recovery.confirmation') }}
                testid="recovery"
              />
              <Button type="submit" variant="contained" size="large" fullWidth disabled={redefineState.isLoading} data-testid="recovery-save">
                {redefineState.isLoading ? t('accounts.recovery.saving') : t('accounts.recovery.save')}
              </Button>
            </Stack>
          )}

          {error && !missingTicket && (
            <Alert severity="error" data-testid="recovery-error">
              {accountErrorText(error, t, exists)}
            </Alert>
          )}
          <Link component={RouterLink} to="/login" variant="body2" sx={{ textAlign: 'center' }}>
            {t('accounts.recovery.backToLogin')}
          </Link>
        </Stack>
      </Paper>
    </AuthScreen>
  )
}
