import { useState } from 'react'
import { useTranslation } from 'react-i18next'
import { Link as RouterLink, useParams } from 'react-router'
import Button from '@mui/material/Button'
import Paper from '@mui/material/Paper'
import Stack from '@mui/material/Stack'
import Typography from '@mui/material/Typography'
import { errorText } from '../../components/errorText'
import FormPage from '../../components/form/FormPage'
import { useSaveAndReturn } from '../../components/form/formHooks'
import { CheckGroup, CheckInput, SelectInput, TextInput } from '../../components/form/fields'
import { errorInfo } from '../../lib/errors'
import { useAppSelector } from '../../store/hooks'
import BrandEditor from '../../components/brand/BrandEditor'
import TwoFactorSwitch from '../../components/TwoFactorSwitch'
import {
  useCustomerQuery,
  useEditCustomerMutation,
  useEnabledLayoutsQuery,
  useEnabledQueryTypesQuery,
  useRegisterCustomerMutation,
  type RegisteredCustomerResponse,
  type Toggles,
} from '../../store/generated/bemteviApi'
import { allowedQueryTypes, allowedToggles, TOGGLE_NAMES } from '../../lib/brandRules'
import { maskCnpj, maskPhone } from '../../lib/masks'

/** The fields shown in their usual masks while typed. */
const MASKS: Partial<Record<string, (value: string) => string>> = { cnpj: maskCnpj, phone: maskPhone }
import { customerErrors, formOf, type CustomerForm } from './validation'

const CATEGORIES = ['unit', 'batch', 'advanced', 'api'] as const

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
  quantities: { unit: 0, batch: 0, advanced: 0, api: 0 },
  // Filled with every type the signed-in group may give once the catalogue answers.
  enabledQueryTypes: [],
  enabledLayouts: [],
  panelAccess: true,
  apiAccess: false,
  whiteLabelUrl: null,
}

export default function CustomerFormPage() {
  const { t, i18n } = useTranslation()
  const { id } = useParams()
  const position = useAppSelector((s) => s.session.lastPosition)
  const editing = !!id
  const loaded = useCustomerQuery({ groupId: id ?? '', position }, { skip: !id, refetchOnMountOrArgChange: true })
  const detail = loaded.data?.data
  // The query types this group may give its customers: its own enabled, active ones (the catalogue's).
  const offered = useEnabledQueryTypesQuery({ position }).data?.data ?? []
  // Likewise the layouts (customers never get more than their parent has).
  // A group's own layouts (written or copied by it) are not its to give: only the platform's it was given.
  const layouts = (useEnabledLayoutsQuery({ position }).data?.data ?? []).filter((l) => !l.groupId)
  const [form, setForm] = useState<CustomerForm>(EMPTY)
  const [toggles, setToggles] = useState<Toggles>({})
  const [errors, setErrors] = useState<Record<string, string>>({})
  const [registered, setRegistered] = useState<RegisteredCustomerResponse | null>(null)
  const [register, registering] = useRegisterCustomerMutation()
  const [edit, editingState] = useEditCustomerMutation()
  const { isLoading, error } = editing ? editingState : registering
  const set = (patch: Partial<CustomerForm>) => setForm((f) => ({ ...f, ...patch }))
  const saved = useSaveAndReturn('/customer-list', t('customers.saved'))
  const err = (field: string) => (errors[field] ? t(errors[field]) : undefined)

  // The loaded customer fills the form once (derived while rendering, not in an effect); later
  // answers (after a brand change, say) must not overwrite what the user is typing.
  const [filledFor, setFilledFor] = useState<string | null>(null)
  if (detail && detail.id !== filledFor) {
    setFilledFor(detail.id)
    setForm(formOf(detail))
    setToggles(detail.toggles)
  }

  // A new customer starts with every type offered (once, while rendering).
  const [offeredFilled, setOfferedFilled] = useState(false)
  if (!editing && !offeredFilled && offered.length > 0) {
    setOfferedFilled(true)
    setForm((f) => ({ ...f, enabledQueryTypes: offered.map((q) => q.key) }))
  }

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

  async function submit() {
    const found = customerErrors(form)
    if (editing) for (const key of Object.keys(found)) if (key.startsWith('quantities.')) delete found[key]
    setErrors(found)
    if (Object.keys(found).length > 0) return
    if (id) {
      const { quantities: _ignored, ...rest } = form
      void _ignored
      saved(await edit({ groupId: id, customerEditRequest: { ...rest, toggles } }))
      return
    }
    // The owner's invitation is written in the language of whoever registers the customer.
    const locale = i18n.language === 'en-US' ? 'en-US' : 'pt-BR'
    const result = await register({ customerRequest: { ...form, locale } })
    if ('data' in result && result.data) setRegistered(result.data)
  }

  if (registered)
    return (
      <Stack spacing={2}>
        <Typography variant="h5" component="h1" sx={{ fontWeight: 600 }}>
          {t('customers.registeredTitle')}
        </Typography>
        <Paper variant="outlined" sx={{ p: { xs: 2, sm: 3 } }} data-testid="customer-registered">
          {/* No password to pass on: the owner chooses theirs from the invitation's link. */}
          <p data-testid="customer-invited">{t('customers.invitedText', { email: registered.data.invitationSentTo })}</p>
          <Typography variant="body2" color="text.secondary" sx={{ mb: 2 }}>
            {t('customers.invitedHint')}
          </Typography>
          <Stack direction="row" sx={{ gap: 1, flexWrap: 'wrap', mb: 2 }}>
            {/* The next steps of setting the customer up: its brand (and credits), then its users. */}
            <Button component={RouterLink} to={`/add-new-customer/${registered.data.uniqueKey}/${registered.data.id}`} variant="outlined" data-testid="customer-next-edit">
              {t('customers.nextEdit')}
            </Button>
            <Button component={RouterLink} to={`/users/${registered.data.uniqueKey}/${registered.data.id}`} variant="outlined" data-testid="customer-next-users">
              {t('customers.users')}
            </Button>
          </Stack>
          <Button component={RouterLink} to="/customer-list" variant="contained">
            {t('customers.backToList')}
          </Button>
        </Paper>
      </Stack>
    )

  const server = error ? errorInfo(error) : null
  // Duplicates name the field taken: say which in the reader's language.
  const takenField = (error as { data?: { field?: string } } | undefined)?.data?.field
  const serverText = !server
    ? null
    : server.code === 'duplicate' && takenField && i18n.exists(`customers.duplicates.${takenField}`)
      ? t(`customers.duplicates.${takenField}`)
      : server.code && i18n.exists(`customers.serverErrors.${server.code}`)
        ? t(`customers.serverErrors.${server.code}`)
        : errorText(error, t, (k) => i18n.exists(k))
  const text = (field: 'cnpj' | 'companyName' | 'tradeName' | 'personInCharge' | 'phone' | 'email', testId: string, type = 'text') => (
    <TextInput label={t(`customers.${field}`)} type={type} value={form[field]} onChange={(value) => set({ [field]: MASKS[field]?.(value) ?? value })} error={err(field)} testId={testId} />
  )
  return (
    <FormPage
      title={editing ? t('customers.editTitle') : t('customers.addTitle')}
      backTo="/customer-list"
      backLabel={t('customers.backToList')}
      loading={editing && loaded.isLoading}
      loadError={editing && loaded.isError ? loaded.error : undefined}
      onSubmit={submit}
      saving={isLoading}
      submitLabel={editing ? t('customers.saveChanges') : t('customers.save')}
      savingLabel={t('credits.grant.saving')}
      serverError={serverText}
      testId="customer-form"
      submitTestId="customer-submit"
      errorTestId="customer-error"
      aside={
        editing &&
        id && (
          <Paper variant="outlined" sx={{ p: { xs: 2, sm: 3 } }} data-testid="customer-brand">
            <Typography variant="h6" component="h2">
              {t('brand.section')}
            </Typography>
            <Typography variant="body2" color="text.secondary" sx={{ mb: 2 }}>
              {t('brand.sectionHint')}
            </Typography>
            <BrandEditor groupId={id} />
          </Paper>
        )
      }
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
      {text('email', 'customer-email', 'email')}
      <TextInput label={t('customers.seller')} value={form.seller ?? ''} onChange={(value) => set({ seller: value || null })} />
      {form.type === 'white-label' && (
        <TextInput
          label={t('customers.whiteLabelUrl')}
          value={form.whiteLabelUrl ?? ''}
          onChange={(value) => set({ whiteLabelUrl: value || null })}
          error={err('whiteLabelUrl')}
          testId="customer-url"
        />
      )}
      <CheckGroup legend={t('customers.quantities')} hint={editing ? t('customers.quantitiesOnEdit') : undefined}>
        {!editing && (
          <Stack direction={{ xs: 'column', sm: 'row' }} spacing={2} sx={{ pt: 1, width: '100%' }}>
            {CATEGORIES.map((category) => (
              <TextInput
                key={category}
                label={t(`credits.categories.${category}`)}
                type="number"
                min={0}
                value={String(form.quantities[category])}
                onChange={(value) => set({ quantities: { ...form.quantities, [category]: Number(value) } })}
                error={err(`quantities.${category}`)}
                testId={`customer-quantity-${category}`}
              />
            ))}
          </Stack>
        )}
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
          />
        ))}
      </CheckGroup>
      {layouts.length > 0 && (
        <div data-testid="customer-layouts" style={{ gridColumn: '1 / -1' }}>
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
        <CheckInput label={t('customers.panel')} checked={form.panelAccess} onChange={(panelAccess) => set({ panelAccess })} />
        <CheckInput label={t('customers.api')} checked={form.apiAccess} onChange={(apiAccess) => set({ apiAccess })} />
      </CheckGroup>
      {editing && (
        <div data-testid="customer-toggles" style={{ gridColumn: '1 / -1' }}>
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
      {editing && id && (
        // Saved on its own as it is switched (the group's setting, not a field of this form).
        <div style={{ gridColumn: '1 / -1' }}>
          <TwoFactorSwitch groupId={id} />
        </div>
      )}
    </FormPage>
  )
}
