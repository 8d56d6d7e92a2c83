import { useState, type FormEvent } from 'react'
import { useTranslation } from 'react-i18next'
import { Link as RouterLink, useNavigate } from 'react-router'
import Alert from '@mui/material/Alert'
import Button from '@mui/material/Button'
import Checkbox from '@mui/material/Checkbox'
import FormControlLabel from '@mui/material/FormControlLabel'
import FormHelperText from '@mui/material/FormHelperText'
import Link from '@mui/material/Link'
import Paper from '@mui/material/Paper'
import Stack from '@mui/material/Stack'
import TextField from '@mui/material/TextField'
import Typography from '@mui/material/Typography'
import { setCredentials } from '../../store/authSlice'
import { useAppDispatch } from '../../store/hooks'
import { useCreateAccountMutation } from '../../store/generated/bemteviApi'
import { accountErrorText } from './errors'
import PasswordFields from './PasswordFields'
import { signUpErrors, type SignUpValues } from './validation'
import AuthScreen, { AuthBrand } from './AuthScreen'

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
    <AuthScreen>
      <Paper
        component="form"
        variant="outlined"
        className="login-card accounts-card"
        onSubmit={(e: FormEvent) => void submit(e)}
        noValidate
        data-testid="create-account-form"
      >
        <Stack spacing={2}>
          <AuthBrand />
          <div>
            <Typography variant="h5" component="h1" sx={{ fontWeight: 700 }}>
              {t('accounts.createAccount.title')}
            </Typography>
            <Typography color="text.secondary">{t('accounts.createAccount.subtitle')}</Typography>
          </div>
          <div className="accounts-grid">
            {TEXT_FIELDS.map(({ field, type, autoComplete }) => (
              <TextField
                key={field}
                type={type}
                name={field}
                label={t(`accounts.createAccount.${field}`)}
                autoComplete={autoComplete}
                value={values[field]}
                onChange={(e) => set(field, e.target.value)}
                error={!!errors[field]}
                helperText={errors[field] ? t(errors[field]) : undefined}
                id={`signup-${field}`}
                fullWidth
                slotProps={{ htmlInput: { 'data-testid': `signup-${field}` } }}
              />
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
          <div>
            <FormControlLabel
              control={
                <Checkbox
                  checked={values.acceptTerms}
                  onChange={(e) => set('acceptTerms', e.target.checked)}
                  slotProps={{ input: { 'data-testid': 'signup-terms' } as object }}
                />
              }
              label={
                <span>
                  {t('accounts.createAccount.acceptTerms')}{' '}
                  <Link component={RouterLink} to="/terms-of-use" target="_blank" rel="noopener">
                    {t('accounts.createAccount.terms')}
                  </Link>
                </span>
              }
            />
            {errors.acceptTerms && <FormHelperText error>{t(errors.acceptTerms)}</FormHelperText>}
          </div>
          {error && (
            <Alert severity="error" data-testid="signup-error">
              {accountErrorText(error, t, (k) => i18n.exists(k))}
            </Alert>
          )}
          <Button type="submit" variant="contained" size="large" fullWidth disabled={isLoading} data-testid="signup-submit">
            {isLoading ? t('accounts.createAccount.submitting') : t('accounts.createAccount.submit')}
          </Button>
          <Typography variant="body2" sx={{ textAlign: 'center' }}>
            {t('accounts.createAccount.haveAccount')}{' '}
            <Link component={RouterLink} to="/login">
              {t('accounts.createAccount.signIn')}
            </Link>
          </Typography>
        </Stack>
      </Paper>
    </AuthScreen>
  )
}
