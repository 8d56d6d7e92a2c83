import { useState, type FormEvent, type ReactNode } from 'react'
import { useTranslation } from 'react-i18next'
import { Link as RouterLink, useParams } from 'react-router'
import Alert from '@mui/material/Alert'
import Box from '@mui/material/Box'
import Button from '@mui/material/Button'
import Chip from '@mui/material/Chip'
import Paper from '@mui/material/Paper'
import Stack from '@mui/material/Stack'
import Step from '@mui/material/Step'
import StepButton from '@mui/material/StepButton'
import StepLabel from '@mui/material/StepLabel'
import Stepper from '@mui/material/Stepper'
import Typography from '@mui/material/Typography'
import { useTheme } from '@mui/material/styles'
import useMediaQuery from '@mui/material/useMediaQuery'
import BrandEditor from '../../components/brand/BrandEditor'
import { CheckGroup, CheckInput, SelectInput, TextInput } from '../../components/form/fields'
import { WIDE } from '../../components/form/formHooks'
import Spinner from '../../components/Spinner'
import { allowedQueryTypes, allowedToggles, TOGGLE_NAMES } from '../../lib/brandRules'
import type { AnyError } from '../../lib/errors'
import { maskCnpj, maskPhone } from '../../lib/masks'
import { useAppSelector } from '../../store/hooks'
import {
  useCustomerQuery,
  useEditCustomerMutation,
  useEnabledLayoutsQuery,
  useEnabledQueryTypesQuery,
  useGrantMutation,
  useListUsersQuery,
  useRegisterCustomerMutation,
  type CustomerEditRequest,
  type Toggles,
} from '../../store/generated/bemteviApi'
import { CATEGORIES, customerServerText, grantsOf, refusedField, SETUP_STEPS, stepErrors, type Category } from './setup'
import { formOf, type CustomerForm } from './validation'

const NO_CREDITS = { unit: 0, batch: 0, advanced: 0, api: 0 }

const EMPTY: CustomerForm = {
  type: 'company',
  cnpj: '',
  companyName: '',
  tradeName: '',
  personInCharge: '',
  phone: '',
  email: '',
  seller: null,
  defaultQuery: true,
  consultProtest: false,
  quantities: NO_CREDITS,
  // Filled with every type the signed-in group may give once the catalogue answers.
  enabledQueryTypes: [],
  enabledLayouts: [],
  panelAccess: true,
  apiAccess: false,
  whiteLabelUrl: null,
}

/** The fields shown in their usual masks while typed. */
const MASKS: Partial<Record<string, (value: string) => string>> = { cnpj: maskCnpj, phone: maskPhone }

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
  const position = useAppSelector((s) => s.session.lastPosition)
  const [registered, setRegistered] = useState<Registered | null>(null)
  const customerId = registered?.id ?? id ?? null
  const customerKey = registered?.uniqueKey ?? uniqueKey ?? ''
  const loaded = useCustomerQuery({ groupId: customerId ?? '', position }, { skip: !customerId, refetchOnMountOrArgChange: true })
  const detail = loaded.data?.data
  const offeredQuery = useEnabledQueryTypesQuery({ position })
  const offered = offeredQuery.data?.data ?? []
  // A group's own layouts (written or copied by it) are not its to give: only the platform's it was given.
  const layouts = (useEnabledLayoutsQuery({ position }).data?.data ?? []).filter((l) => !l.groupId)

  // A customer opened from the list starts where its set-up is usually left: after the company.
  const [step, setStep] = useState(id ? 1 : 0)
  // The furthest step reached: the ones before it show as done when the user goes back to one.
  const [furthest, setFurthest] = useState(id ? 1 : 0)
  const [done, setDone] = useState(false)
  const [form, setForm] = useState<CustomerForm>(EMPTY)
  const [toggles, setToggles] = useState<Toggles>({})
  const [errors, setErrors] = useState<Record<string, string>>({})
  const [failure, setFailure] = useState<AnyError>(null)
  const [saving, setSaving] = useState(false)
  const [register] = useRegisterCustomerMutation()
  const [edit] = useEditCustomerMutation()
  const [grant] = useGrantMutation()
  const owners = useListUsersQuery(
    { groupId: customerId ?? '', position, pageSize: 20 },
    { skip: !customerId || step !== 3, refetchOnMountOrArgChange: true },
  )
  const owner = owners.data?.data.find((u) => u.role === 'owner')

  const set = (patch: Partial<CustomerForm>) => {
    setForm((f) => ({ ...f, ...patch }))
    // A field changed no longer shows the error of the last save (its group's: quantities, access).
    const changed = Object.keys(patch).map((key) => (key === 'panelAccess' || key === 'apiAccess' ? 'access' : key))
    setErrors((e) => Object.fromEntries(Object.entries(e).filter(([field]) => !changed.includes(field.split('.')[0]))))
  }
  const err = (field: string) => (errors[field] ? t(errors[field]) : undefined)

  // The customer's detail fills the form once (while rendering); one registered here keeps what was typed and
  // takes only what the server chose (its toggles). Later answers never overwrite typing.
  const [filledFor, setFilledFor] = useState<string | null>(null)
  if (detail && detail.id !== filledFor) {
    setFilledFor(detail.id)
    if (!registered) setForm(formOf(detail))
    setToggles(detail.toggles)
  }
  // A new customer starts with every type offered (once, while rendering).
  const [offeredFilled, setOfferedFilled] = useState(false)
  if (!id && !offeredFilled && offered.length > 0) {
    setOfferedFilled(true)
    setForm((f) => ({ ...f, enabledQueryTypes: offered.map((q) => q.key) }))
  }

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

  function editBody(): CustomerEditRequest {
    const { quantities: _given, ...rest } = form
    void _given
    return { ...rest, toggles }
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
        const result = await edit({ groupId: customerId, customerEditRequest: editBody() })
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
      const result = await edit({ groupId: customerId, customerEditRequest: editBody() })
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

  // The permissions step reads the page's state: called as a function, never drawn as a component of its own
  // (a component declared inside the page would be a new one on each render and lose the focus of its inputs).
  function permissionsStep() {
    const mayToggle = allowedToggles(detail?.parentToggles ?? {})
    const offeredKeys = offered.map((q) => q.key)
    // A type the customer has that the catalogue no longer offers (inactive) still shows, to be unticked.
    const shownTypes = [
      ...offered,
      ...form.enabledQueryTypes.filter((k) => !offeredKeys.includes(k)).map((k) => ({ key: k, name: k })),
    ]
    const mayQuery = allowedQueryTypes(offeredKeys, detail ? detail.parentEnabledQueryTypes : null)
    const mayLayout = allowedQueryTypes(
      layouts.map((l) => l.id),
      detail ? detail.parentEnabledLayouts : null,
    )
    const chosenLayouts = form.enabledLayouts ?? []
    const balance = (category: Category) => {
      const figures = detail?.credits.find((c) => c.category === category)
      if (!figures) return undefined
      return t('customers.setup.balance', { value: figures.available === null ? t('customers.setup.unlimited') : figures.available })
    }
    return (
      <StepForm
        hint={t('customers.setup.permissionsHint')}
        onSubmit={savePermissions}
        saving={saving}
        ready
        failure={failureText}
        onBack={() => go(0)}
        testId="setup-permissions"
      >
        <CheckGroup legend={t('customers.setup.give')} hint={t('customers.setup.giveHint')}>
          <Box
            sx={{
              pt: 1,
              width: '100%',
              display: 'grid',
              gap: 2,
              gridTemplateColumns: { xs: 'minmax(0, 1fr)', sm: 'repeat(2, minmax(0, 1fr))', lg: 'repeat(4, minmax(0, 1fr))' },
            }}
          >
            {CATEGORIES.map((category) => (
              <TextInput
                key={category}
                label={t(`credits.categories.${category}`)}
                type="number"
                min={0}
                value={String(form.quantities[category])}
                onChange={(value) => set({ quantities: { ...form.quantities, [category]: Number(value) } })}
                error={err(`quantities.${category}`)}
                hint={balance(category)}
                testId={`customer-quantity-${category}`}
              />
            ))}
          </Box>
        </CheckGroup>
        <CheckGroup legend={t('customers.queryTypes')} error={err('enabledQueryTypes')}>
          {shownTypes.map(({ key, name }) => (
            <CheckInput
              key={key}
              label={name}
              checked={form.enabledQueryTypes.includes(key)}
              disabled={!mayQuery.includes(key) && !form.enabledQueryTypes.includes(key)}
              title={!mayQuery.includes(key) ? t('customers.parentLacks') : undefined}
              onChange={(on) =>
                set({ enabledQueryTypes: on ? [...form.enabledQueryTypes, key] : form.enabledQueryTypes.filter((k) => k !== key) })
              }
              testId={`setup-query-${key}`}
            />
          ))}
        </CheckGroup>
        {layouts.length > 0 && (
          <div data-testid="customer-layouts" style={{ gridColumn: '1 / -1', minWidth: 0 }}>
            <CheckGroup legend={t('customers.layouts')}>
              {layouts.map((layout) => (
                <CheckInput
                  key={layout.id}
                  label={`${layout.fileName} (${layout.acceptedExtension.toUpperCase()} → ${layout.returnExtension.toUpperCase()})`}
                  checked={chosenLayouts.includes(layout.id)}
                  disabled={!mayLayout.includes(layout.id) && !chosenLayouts.includes(layout.id)}
                  title={!mayLayout.includes(layout.id) ? t('customers.parentLacks') : undefined}
                  onChange={(on) => set({ enabledLayouts: on ? [...chosenLayouts, layout.id] : chosenLayouts.filter((k) => k !== layout.id) })}
                  testId="customer-layout"
                />
              ))}
            </CheckGroup>
          </div>
        )}
        <CheckGroup legend={t('customers.options')} error={err('access')}>
          <CheckInput label={t('customers.defaultQuery')} checked={form.defaultQuery} onChange={(defaultQuery) => set({ defaultQuery })} />
          <CheckInput label={t('customers.consultProtest')} checked={form.consultProtest} onChange={(consultProtest) => set({ consultProtest })} />
          <CheckInput label={t('customers.panel')} checked={form.panelAccess} onChange={(panelAccess) => set({ panelAccess })} testId="setup-panel" />
          <CheckInput label={t('customers.api')} checked={form.apiAccess} onChange={(apiAccess) => set({ apiAccess })} testId="setup-api" />
        </CheckGroup>
        {detail && (
          <div data-testid="customer-toggles" style={{ gridColumn: '1 / -1', minWidth: 0 }}>
            <CheckGroup legend={t('customers.permissions')}>
              {TOGGLE_NAMES.map((name) => (
                <CheckInput
                  key={name}
                  label={
                    <>
                      {t(`customers.toggles.${name}`)}
                      {!mayToggle[name] && <small className="muted"> ({t('customers.parentLacks')})</small>}
                    </>
                  }
                  checked={toggles[name] === true}
                  disabled={!mayToggle[name] && toggles[name] !== true}
                  onChange={(on) => setToggles({ ...toggles, [name]: on })}
                  testId={`customer-toggle-${name}`}
                />
              ))}
            </CheckGroup>
          </div>
        )}
      </StepForm>
    )
  }

  let body: ReactNode
  if (customerId && !detail && (loaded.isLoading || loaded.isFetching)) body = <Spinner />
  else if (customerId && loaded.isError && !detail)
    body = (
      <Alert severity="error" role="alert">
        {customerServerText(loaded.error as AnyError, t, exists)}
      </Alert>
    )
  else if (done) body = <DonePage name={detail?.tradeName || detail?.companyName || form.tradeName} uniqueKey={customerKey} id={customerId ?? ''} />
  else if (step === 0) {
    const text = (field: 'cnpj' | 'companyName' | 'tradeName' | 'personInCharge' | 'phone' | 'email', testId: string, type = 'text') => (
      <TextInput
        label={t(`customers.${field}`)}
        type={type}
        value={form[field]}
        onChange={(value) => set({ [field]: MASKS[field]?.(value) ?? value })}
        error={err(field)}
        testId={testId}
      />
    )
    body = (
      <StepForm
        hint={customerId ? t('customers.setup.companyEditHint') : t('customers.setup.companyHint')}
        onSubmit={saveCompany}
        saving={saving}
        // A new customer needs the query types it may be given (all, by default) before it can be registered.
        ready={!!customerId || offered.length > 0}
        failure={failureText}
        testId="setup-company"
      >
        <SelectInput
          label={t('customers.type')}
          value={form.type}
          onChange={(type: CustomerForm['type']) => set({ type })}
          options={(['company', 'reseller', 'white-label'] as const).map((type) => ({ value: type, label: t(`customers.types.${type}`) }))}
          testId="customer-type"
        />
        {text('cnpj', 'customer-cnpj')}
        {text('companyName', 'customer-company-name')}
        {text('tradeName', 'customer-trade-name')}
        {text('personInCharge', 'customer-person')}
        {text('phone', 'customer-phone', 'tel')}
        {/* The owner signs in with it and the invitation went there: a registered customer's stays. */}
        <TextInput
          label={t('customers.email')}
          type="email"
          value={form.email}
          onChange={(email) => set({ email })}
          error={err('email')}
          hint={customerId ? t('customers.setup.emailLocked') : undefined}
          disabled={!!customerId}
          testId="customer-email"
        />
        <TextInput label={t('customers.seller')} value={form.seller ?? ''} onChange={(value) => set({ seller: value || null })} testId="customer-seller" />
        {form.type === 'white-label' && (
          <TextInput
            label={t('customers.whiteLabelUrl')}
            value={form.whiteLabelUrl ?? ''}
            onChange={(value) => set({ whiteLabelUrl: value || null })}
            error={err('whiteLabelUrl')}
            hint={t('customers.setup.domainHint')}
            testId="customer-url"
          />
        )}
      </StepForm>
    )
  } else if (step === 1) body = permissionsStep()
  else if (step === 2)
    body = (
      <Paper variant="outlined" sx={{ p: { xs: 2, sm: 3 }, minWidth: 0 }} data-testid="setup-brand">
        <Typography variant="body2" color="text.secondary" sx={{ mb: 1 }}>
          {t('customers.setup.brandHint')}
        </Typography>
        <Typography variant="body2" sx={{ mb: 2, overflowWrap: 'anywhere' }} data-testid="setup-domain">
          <strong>{t('customers.setup.domain')}: </strong>
          {detail?.domainUrl ? t('customers.setup.domainOf', { url: `https://${detail.domainUrl}` }) : t('customers.setup.domainInherited')}
        </Typography>
        {customerId && (
          <BrandEditor
            groupId={customerId}
            onSaved={() => go(3)}
            saveLabel={t('customers.setup.brandSave')}
            extraActions={
              <>
                <Button onClick={() => go(1)}>{t('customers.setup.back')}</Button>
                <Button onClick={() => go(3)} data-testid="setup-skip-brand">
                  {t('customers.setup.skipBrand')}
                </Button>
              </>
            }
          />
        )}
      </Paper>
    )
  else {
    const invitedTo = registered?.invitedTo ?? owner?.email ?? detail?.email ?? null
    body = (
      <Paper variant="outlined" sx={{ p: { xs: 2, sm: 3 }, minWidth: 0 }} data-testid="setup-owner">
        {invitedTo ? (
          <Typography sx={{ overflowWrap: 'anywhere' }} data-testid="setup-invited">
            {t('customers.setup.invitedTo', { email: invitedTo })}
          </Typography>
        ) : (
          <Typography>{t('customers.setup.ownerUnknown')}</Typography>
        )}
        {owner && (
          <Chip
            size="small"
            sx={{ mt: 1 }}
            color={owner.status === 'active' ? 'success' : 'default'}
            label={t(`customers.setup.ownerStatus.${owner.status}`)}
            data-testid="setup-owner-status"
          />
        )}
        <Typography variant="body2" color="text.secondary" sx={{ mt: 1 }}>
          {t('customers.setup.invitedHowTo')}
        </Typography>
        <StepActions>
          <Button variant="contained" onClick={() => setDone(true)} data-testid="setup-finish">
            {t('customers.setup.finish')}
          </Button>
          <Button onClick={() => go(2)}>{t('customers.setup.back')}</Button>
        </StepActions>
      </Paper>
    )
  }

  return (
    <Stack spacing={2} sx={{ minWidth: 0 }} data-testid="customer-setup">
      {header}
      {stepper}
      {body}
    </Stack>
  )
}

/** The buttons under a step, wrapping on a phone. */
function StepActions({ children }: { children: ReactNode }) {
  return <Box sx={{ ...WIDE, display: 'flex', gap: 1, flexWrap: 'wrap', mt: 2 }}>{children}</Box>
}

/** A step that is a form (company, permissions): laid out as the app's form pages, its refusal over its buttons. */
function StepForm({
  hint,
  onSubmit,
  saving,
  ready,
  failure,
  onBack,
  testId,
  children,
}: {
  hint: string
  onSubmit: () => unknown
  saving: boolean
  ready: boolean
  failure: string | null
  onBack?: () => void
  testId: string
  children: ReactNode
}) {
  const { t } = useTranslation()
  return (
    <Paper
      component="form"
      variant="outlined"
      noValidate
      data-testid={testId}
      onSubmit={(event: FormEvent) => {
        event.preventDefault()
        void onSubmit()
      }}
      sx={{ p: { xs: 2, sm: 3 }, display: 'grid', gap: 2, gridTemplateColumns: { xs: 'minmax(0, 1fr)', sm: 'repeat(2, minmax(0, 1fr))' } }}
    >
      <Typography variant="body2" color="text.secondary" sx={WIDE}>
        {hint}
      </Typography>
      {children}
      {failure && (
        <Alert severity="error" role="alert" data-testid="setup-error" sx={WIDE}>
          {failure}
        </Alert>
      )}
      <Box sx={{ ...WIDE, display: 'flex', gap: 1, flexWrap: 'wrap' }}>
        <Button type="submit" variant="contained" disabled={saving || !ready} data-testid="setup-next">
          {saving ? t('customers.setup.saving') : t('customers.setup.next')}
        </Button>
        {onBack && (
          <Button onClick={onBack} disabled={saving}>
            {t('customers.setup.back')}
          </Button>
        )}
      </Box>
    </Paper>
  )
}

/** After the last step: where the customer's set-up goes on. */
function DonePage({ name, uniqueKey, id }: { name: string; uniqueKey: string; id: string }) {
  const { t } = useTranslation()
  const next = [
    { to: `/users/${uniqueKey}/${id}`, label: t('customers.setup.openUsers'), hint: t('customers.setup.openUsersHint'), testId: 'setup-next-users' },
    { to: `/add-new-customer/${uniqueKey}/${id}`, label: t('customers.setup.openBrand'), hint: t('customers.setup.openBrandHint'), testId: 'setup-next-brand' },
    { to: '/customer-list', label: t('customers.setup.toList'), hint: t('customers.setup.toListHint'), testId: 'setup-next-list' },
  ]
  return (
    <Paper variant="outlined" sx={{ p: { xs: 2, sm: 3 }, minWidth: 0 }} data-testid="setup-done">
      <Typography variant="h6" component="h2">
        {t('customers.setup.doneTitle')}
      </Typography>
      <Typography sx={{ mb: 2, overflowWrap: 'anywhere' }}>{t('customers.setup.doneText', { name })}</Typography>
      <Box sx={{ display: 'grid', gap: 2, gridTemplateColumns: { xs: 'minmax(0, 1fr)', md: 'repeat(3, minmax(0, 1fr))' } }}>
        {next.map(({ to, label, hint, testId }) => (
          <Stack key={testId} spacing={1} sx={{ alignItems: 'flex-start', minWidth: 0 }}>
            <Button component={RouterLink} to={to} variant="outlined" data-testid={testId}>
              {label}
            </Button>
            <Typography variant="body2" color="text.secondary">
              {hint}
            </Typography>
          </Stack>
        ))}
      </Box>
    </Paper>
  )
}
