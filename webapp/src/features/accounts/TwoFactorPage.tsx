import { useEffect, useState, type FormEvent } from 'react'
import { useTranslation } from 'react-i18next'
import { Link as RouterLink, useLocation, useNavigate, useSearchParams } from 'react-router'
import Alert from '@mui/material/Alert'
import Button from '@mui/material/Button'
import Link from '@mui/material/Link'
import Paper from '@mui/material/Paper'
import Stack from '@mui/material/Stack'
import TextField from '@mui/material/TextField'
import Typography from '@mui/material/Typography'
import { useNotify } from '../../components/feedback'
import { errorInfo, type AnyError } from '../../lib/errors'
import { REDIRECT_PARAM, safeRedirect } from '../../routes/redirect'
import { setCredentials } from '../../store/authSlice'
import { useResendTwoFactorMutation, useVerifyTwoFactorMutation } from '../../store/generated/bemteviApi'
import { useAppDispatch } from '../../store/hooks'
import AuthScreen, { AuthBrand } from './AuthScreen'
import { accountErrorText } from './errors'
import { CODE_DIGITS, codeDigits } from './validation'

// The server's wait between codes when the sign-in did not say (it refuses a sooner resend anyway).
const DEFAULT_RESEND_SECONDS = 30
// Refusals after which this challenge takes no code: only a new sign-in sends one.
const SIGN_IN_AGAIN = new Set(['two_factor_code_used', 'two_factor_locked', 'two_factor_challenge_not_found'])

/**
 * verify-code?challenge=<id>: the second step of a sign-in in a group with two-step verification. The code
 * from the mail signs in as the password would have; a new code may be asked for after a short wait.
 */
export default function TwoFactorPage() {
  const { t, i18n } = useTranslation()
  const notify = useNotify()
  const dispatch = useAppDispatch()
  const navigate = useNavigate()
  const location = useLocation()
  const [params] = useSearchParams()
  const challengeId = params.get('challenge') ?? ''
  const given = (location.state as { resendAfter?: number | null } | null)?.resendAfter
  // Seconds until a new code may be asked for, counted down on screen.
  const [wait, setWait] = useState(given ?? DEFAULT_RESEND_SECONDS)
  const [code, setCode] = useState('')
  const [touched, setTouched] = useState(false)
  const [verify, verifyState] = useVerifyTwoFactorMutation()
  const [resend, resendState] = useResendTwoFactorMutation()

  // The countdown of the resend button: a tick a second while there is a wait.
  useEffect(() => {
    if (wait <= 0) return
    const timer = window.setTimeout(() => setWait((left) => left - 1), 1000)
    return () => window.clearTimeout(timer)
  }, [wait])

  const locale = i18n.language === 'en-US' ? 'en-US' : 'pt-BR'
  const error = verifyState.error ?? resendState.error
  const errorCode = error ? errorInfo(error as AnyError).code : undefined
  const spent = !!errorCode && SIGN_IN_AGAIN.has(errorCode)
  const complete = code.length === CODE_DIGITS

  const submit = async (event: FormEvent) => {
    event.preventDefault()
    setTouched(true)
    resendState.reset()
    if (!complete) return
    try {
      const answer = await verify({ twoFactorCodeRequest: { challengeId, code } }).unwrap()
      dispatch(setCredentials({ token: answer.token, user: answer.data }))
      if (answer.data.status === 'first-access') navigate('/first-access', { replace: true })
      else navigate(safeRedirect(params.get(REDIRECT_PARAM)), { replace: true })
    } catch {
      setCode('')
    }
  }

  const askAgain = async () => {
    verifyState.reset()
    try {
      const sent = await resend({ twoFactorResendRequest: { challengeId, locale } }).unwrap()
      setWait(sent.resendAfter)
      setCode('')
      setTouched(false)
      notify({ type: 'positive', message: t('accounts.twoFactor.resent') })
    } catch (e) {
      const seconds = (e as { data?: { resendAfter?: number } }).data?.resendAfter
      if (seconds) setWait(seconds)
    }
  }

  return (
    <AuthScreen>
      <Paper variant="outlined" className="login-card" data-testid="two-factor">
        <Stack spacing={2}>
          <AuthBrand />
          <Typography variant="h5" component="h1" sx={{ fontWeight: 700 }}>
            {t('accounts.twoFactor.title')}
          </Typography>
          {!challengeId ? (
            <Typography>{t('accounts.twoFactor.noChallenge')}</Typography>
          ) : (
            <Stack component="form" spacing={2} onSubmit={(e: FormEvent) => void submit(e)} noValidate>
              <Typography color="text.secondary">{t('accounts.twoFactor.text')}</Typography>
              <TextField
                className="accounts-code"
                label={t('accounts.twoFactor.code')}
                autoComplete="one-time-code"
                autoFocus
                value={code}
                onChange={(e) => setCode(codeDigits(e.target.value))}
                error={touched && !complete}
                helperText={touched && !complete ? t('accounts.twoFactor.incomplete') : t('accounts.twoFactor.codeHint')}
                id="two-factor-code"
                fullWidth
                disabled={spent}
                slotProps={{
                  htmlInput: { inputMode: 'numeric', pattern: '[0-9]*', 'data-testid': 'two-factor-code' },
                }}
              />
              <Button
                type="submit"
                variant="contained"
                size="large"
                fullWidth
                disabled={verifyState.isLoading || spent}
                data-testid="two-factor-submit"
              >
                {verifyState.isLoading ? t('accounts.twoFactor.verifying') : t('accounts.twoFactor.submit')}
              </Button>
              <Button
                variant="text"
                onClick={() => void askAgain()}
                disabled={wait > 0 || resendState.isLoading || spent}
                data-testid="two-factor-resend"
              >
                {wait > 0 ? t('accounts.twoFactor.resendIn', { seconds: wait }) : t('accounts.twoFactor.resend')}
              </Button>
            </Stack>
          )}
          {error && (
            <Alert severity="error" data-testid="two-factor-error">
              {accountErrorText(error, t, (k) => i18n.exists(k))}
            </Alert>
          )}
          <Link component={RouterLink} to="/login" variant="body2" sx={{ textAlign: 'center' }} data-testid="two-factor-login">
            {spent || !challengeId ? t('accounts.twoFactor.signInAgain') : t('accounts.recovery.backToLogin')}
          </Link>
        </Stack>
      </Paper>
    </AuthScreen>
  )
}
