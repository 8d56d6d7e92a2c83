import { useState, type ReactNode } from 'react'
import { useTranslation } from 'react-i18next'
import { Link as RouterLink, useParams } from 'react-router'
import Alert from '@mui/material/Alert'
import Box from '@mui/material/Box'
import Button from '@mui/material/Button'
import Paper from '@mui/material/Paper'
import Stack from '@mui/material/Stack'
import Step from '@mui/material/Step'
import StepButton from '@mui/material/StepButton'
import StepLabel from '@mui/material/StepLabel'
import Stepper from '@mui/material/Stepper'
import Typography from '@mui/material/Typography'
import { useTheme } from '@mui/material/styles'
import useMediaQuery from '@mui/material/useMediaQuery'
import Spinner from '../../components/Spinner'
import type { AnyError } from '../../lib/errors'
import { useEditCustomerMutation, useGrantMutation, useRegisterCustomerMutation } from '../../store/generated/bemteviApi'
import { customerServerText, refusedField } from './refusals'
import { grantsOf, SETUP_STEPS, stepErrors } from './setup'
import SetupBrandStep from './SetupBrandStep'
import SetupCompanyStep from './SetupCompanyStep'
import SetupDone from './SetupDone'
import SetupOwnerStep from './SetupOwnerStep'
import SetupPermissionsStep from './SetupPermissionsStep'
import { useCustomerForm } from './useCustomerForm'
import { editRequestOf, NO_CREDITS, type CustomerForm } from './validation'

/** The customer the set-up works on: registered by its first step, or opened from the list to be finished. */
type Registered = { id: string; uniqueKey: string; invitedTo: string | null }

/**
 * One guided set-up of a customer (issue 37): company, permissions and credits, brand, the owner's invitation,
 * then the next steps. Each step saves through the calls the separate screens use (register, edit, grants, brand);
 * the first step registers the customer, so leaving later leaves a customer that its row's "continue" finishes.
 */
export default function CustomerSetupPage() {
  const { t, i18n } = useTranslation()
  const exists = (key: string) => i18n.exists(key)
  const { uniqueKey, id } = useParams()
  const theme = useTheme()
  const narrow = useMediaQuery(theme.breakpoints.down('sm'))
  const [registered, setRegistered] = useState<Registered | null>(null)
  const customerId = registered?.id ?? id ?? null
  const customerKey = registered?.uniqueKey ?? uniqueKey ?? ''
  // One registered here keeps what was typed and takes only what the server chose (its toggles).
  const { loaded, detail, offered, form, setForm, toggles, access } = useCustomerForm({
    customerId,
    startsNew: !id,
    keepTyped: !!registered,
  })

  // A customer opened from the list starts where its set-up is usually left: after the company.
  const [step, setStep] = useState(id ? 1 : 0)
  // The furthest step reached: the ones before it show as done when the user goes back to one.
  const [furthest, setFurthest] = useState(id ? 1 : 0)
  const [done, setDone] = useState(false)
  const [errors, setErrors] = useState<Record<string, string>>({})
  const [failure, setFailure] = useState<AnyError>(null)
  const [saving, setSaving] = useState(false)
  const [register] = useRegisterCustomerMutation()
  const [edit] = useEditCustomerMutation()
  const [grant] = useGrantMutation()

  const set = (patch: Partial<CustomerForm>) => {
    setForm((f) => ({ ...f, ...patch }))
    // A field changed no longer shows the error of the last save (its group's: quantities, access).
    const changed = Object.keys(patch).map((key) => (key === 'panelAccess' || key === 'apiAccess' ? 'access' : key))
    setErrors((e) => Object.fromEntries(Object.entries(e).filter(([field]) => !changed.includes(field.split('.')[0]))))
  }
  const err = (field: string) => (errors[field] ? t(errors[field]) : undefined)

  function go(to: number) {
    setFailure(null)
    setErrors({})
    setStep(to)
    setFurthest((f) => Math.max(f, to))
  }

  /** A refused call: its message over the step's buttons, and on the field it names; the form keeps its values. */
  function refused(error: AnyError) {
    setFailure(error)
    const field = refusedField(error)
    if (field && exists(`customers.duplicates.${field}`)) setErrors({ [field]: `customers.duplicates.${field}` })
  }

  async function runStep(work: () => Promise<boolean>, next: number) {
    setFailure(null)
    setSaving(true)
    try {
      if (await work()) go(next)
    } finally {
      setSaving(false)
    }
  }

  async function saveCompany() {
    const found = stepErrors('company', form)
    setErrors(found)
    if (Object.keys(found).length > 0) return
    await runStep(async () => {
      if (customerId) {
        const result = await edit({ groupId: customerId, customerEditRequest: editRequestOf(form, toggles) })
        if ('error' in result) refused(result.error)
        return !('error' in result)
      }
      // The owner's invitation is written in the language of whoever registers the customer; credits come with
      // the next step (grants), so a refused grant never undoes the registration.
      const locale = i18n.language === 'en-US' ? 'en-US' : 'pt-BR'
      const result = await register({ customerRequest: { ...form, quantities: NO_CREDITS, locale } })
      if ('error' in result || !result.data) {
        refused('error' in result ? result.error : null)
        return false
      }
      const data = result.data.data
      setRegistered({ id: data.id, uniqueKey: data.uniqueKey, invitedTo: data.invitationSentTo })
      return true
    }, 1)
  }

  async function savePermissions() {
    const found = stepErrors('permissions', form)
    setErrors(found)
    if (Object.keys(found).length > 0 || !customerId) return
    await runStep(async () => {
      const result = await edit({ groupId: customerId, customerEditRequest: editRequestOf(form, toggles) })
      if ('error' in result) {
        refused(result.error)
        return false
      }
      for (const { category, amount } of grantsOf(form.quantities)) {
        const given = await grant({ grantRequest: { groupId: customerId, category, amount } })
        if ('error' in given) {
          refused(given.error)
          return false
        }
        // Given: saving the step again does not give it twice.
        setForm((f) => ({ ...f, quantities: { ...f.quantities, [category]: 0 } }))
      }
      return true
    }, 2)
  }

  const title = id ? t('customers.setup.resumeTitle') : t('customers.setup.title')
  const header = (
    <Stack direction="row" sx={{ gap: 2, alignItems: 'center', justifyContent: 'space-between', flexWrap: 'wrap' }}>
      <Box sx={{ minWidth: 0 }}>
        <Typography variant="h5" component="h1" sx={{ fontWeight: 600, overflowWrap: 'anywhere' }}>
          {title}
        </Typography>
        {detail && (
          <Typography color="text.secondary" sx={{ overflowWrap: 'anywhere' }} data-testid="setup-customer-name">
            {detail.tradeName || detail.companyName}
          </Typography>
        )}
      </Box>
      <Button component={RouterLink} to="/customer-list" variant="outlined" sx={{ flexShrink: 0 }}>
        {t('customers.backToList')}
      </Button>
    </Stack>
  )
  const stepper = (
    <Paper variant="outlined" sx={{ p: { xs: 1.5, sm: 2 } }}>
      {narrow && (
        <Typography variant="caption" color="text.secondary" component="p" sx={{ mb: 1 }} data-testid="setup-step-of">
          {t('customers.setup.stepOf', { n: Math.min(step + 1, SETUP_STEPS.length), total: SETUP_STEPS.length })}
        </Typography>
      )}
      <Stepper activeStep={done ? SETUP_STEPS.length : step} alternativeLabel={!narrow} nonLinear={!!customerId && !done} data-testid="setup-stepper">
        {SETUP_STEPS.map((name, index) => {
          // On a phone only the current step is named (the caption above says which of how many).
          const label = narrow && index !== step ? '' : t(`customers.setup.steps.${name}`)
          return (
            <Step key={name} completed={done || (index < furthest && index !== step) || (index === 0 && !!customerId && step !== 0)}>
              {customerId && !done ? (
                <StepButton onClick={() => go(index)} data-testid={`setup-step-${name}`} aria-label={t(`customers.setup.steps.${name}`)}>
                  {label}
                </StepButton>
              ) : (
                <StepLabel data-testid={`setup-step-${name}`}>{label}</StepLabel>
              )}
            </Step>
          )
        })}
      </Stepper>
    </Paper>
  )
  const failureText = failure ? customerServerText(failure, t, exists) : null

  const stepProps = { saving, failure: failureText }
  let body: ReactNode
  if (customerId && !detail && (loaded.isLoading || loaded.isFetching)) body = <Spinner />
  else if (customerId && loaded.isError && !detail)
    body = (
      <Alert severity="error" role="alert">
        {customerServerText(loaded.error as AnyError, t, exists)}
      </Alert>
    )
  else if (done) body = <SetupDone name={detail?.tradeName || detail?.companyName || form.tradeName} uniqueKey={customerKey} id={customerId ?? ''} />
  else if (step === 0)
    body = (
      <SetupCompanyStep
        {...stepProps}
        onSubmit={saveCompany}
        form={form}
        set={set}
        err={err}
        registered={!!customerId}
        // A new customer needs the query types it may be given (all, by default) before it can be registered.
        ready={!!customerId || offered.length > 0}
      />
    )
  else if (step === 1)
    body = (
      <SetupPermissionsStep
        {...stepProps}
        onSubmit={savePermissions}
        onBack={() => go(0)}
        form={form}
        set={set}
        err={err}
        {...access}
      />
    )
  else if (step === 2) body = <SetupBrandStep customerId={customerId} domainUrl={detail?.domainUrl} onBack={() => go(1)} onNext={() => go(3)} />
  else
    body = (
      <SetupOwnerStep
        customerId={customerId}
        registeredTo={registered?.invitedTo}
        customerEmail={detail?.email}
        onBack={() => go(2)}
        onFinish={() => setDone(true)}
      />
    )

  return (
    <Stack spacing={2} sx={{ minWidth: 0 }} data-testid="customer-setup">
      {header}
      {stepper}
      {body}
    </Stack>
  )
}
