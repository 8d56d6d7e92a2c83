import { useState, type FormEvent } from 'react'
import { useTranslation } from 'react-i18next'
import { Link, useNavigate, useParams } from 'react-router'
import { errorText } from '../../components/errorText'
import Field from '../../components/FormField'
import { useNotify } from '../../components/feedback'
import Spinner from '../../components/Spinner'
import { errorInfo } from '../../lib/errors'
import { useAppSelector } from '../../store/hooks'
import BrandEditor from '../../components/brand/BrandEditor'
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
  const navigate = useNavigate()
  const notify = useNotify()
  const position = useAppSelector((s) => s.session.lastPosition)
  const editing = !!id
  const loaded = useCustomerQuery({ groupId: id ?? '', position }, { skip: !id, refetchOnMountOrArgChange: true })
  const detail = loaded.data?.data
  // The query types this group may give its customers: its own enabled, active ones (the catalogue's).
  const offered = useEnabledQueryTypesQuery({ position }).data?.data ?? []
  // Likewise the layouts (customers never get more than their parent has).
  const layouts = useEnabledLayoutsQuery({ position }).data?.data ?? []
  const [form, setForm] = useState<CustomerForm>(EMPTY)
  const [toggles, setToggles] = useState<Toggles>({})
  const [errors, setErrors] = useState<Record<string, string>>({})
  const [registered, setRegistered] = useState<RegisteredCustomerResponse | null>(null)
  const [register, registering] = useRegisterCustomerMutation()
  const [edit, editingState] = useEditCustomerMutation()
  const { isLoading, error } = editing ? editingState : registering
  const set = (patch: Partial<CustomerForm>) => setForm((f) => ({ ...f, ...patch }))
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

  async function submit(event: FormEvent) {
    event.preventDefault()
    const found = customerErrors(form)
    if (editing) for (const key of Object.keys(found)) if (key.startsWith('quantities.')) delete found[key]
    setErrors(found)
    if (Object.keys(found).length > 0) return
    if (id) {
      const { quantities: _ignored, ...rest } = form
      void _ignored
      const result = await edit({ groupId: id, customerEditRequest: { ...rest, toggles } })
      if ('data' in result && result.data) {
        notify({ type: 'positive', message: t('customers.saved') })
        void navigate('/customer-list')
      }
      return
    }
    const result = await register({ customerRequest: form })
    if ('data' in result && result.data) setRegistered(result.data)
  }

  if (registered)
    return (
      <div className="page customer-form">
        <h1>{t('customers.registeredTitle')}</h1>
        <section className="card" data-testid="customer-registered">
          <p>{t('customers.registeredText')}</p>
          <dl className="figures">
            <dt>{t('customers.email')}</dt>
            <dd>{registered.data.ownerEmail}</dd>
            <dt>{t('customers.generatedPassword')}</dt>
            <dd>
              <code data-testid="customer-password">{registered.data.generatedPassword}</code>
            </dd>
          </dl>
          <p className="muted small">{t('customers.passwordOnce')}</p>
          <Link to="/customer-list" className="btn btn-primary">
            {t('customers.backToList')}
          </Link>
        </section>
      </div>
    )

  if (editing && loaded.isLoading) return <Spinner />
  if (editing && loaded.isError)
    return (
      <div className="page customer-form">
        <div className="alert alert-error" role="alert">
          {errorText(loaded.error, t, (k) => i18n.exists(k))}
        </div>
        <Link to="/customer-list" className="btn">
          {t('customers.backToList')}
        </Link>
      </div>
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
  return (
    <div className="page customer-form">
      <div className="page-header">
        <h1>{editing ? t('customers.editTitle') : t('customers.addTitle')}</h1>
        <Link to="/customer-list" className="btn">
          {t('customers.backToList')}
        </Link>
      </div>
      <form className="card form-grid" onSubmit={submit} noValidate data-testid="customer-form">
        <Field label={t('customers.type')}>
          <select value={form.type} onChange={(e) => set({ type: e.target.value as CustomerForm['type'] })} data-testid="customer-type">
            {(['company', 'reseller', 'white-label'] as const).map((type) => (
              <option key={type} value={type}>
                {t(`customers.types.${type}`)}
              </option>
            ))}
          </select>
        </Field>
        <Field label={t('customers.cnpj')} error={err('cnpj')}>
          <input value={form.cnpj} onChange={(e) => set({ cnpj: e.target.value })} data-testid="customer-cnpj" />
        </Field>
        <Field label={t('customers.companyName')} error={err('companyName')}>
          <input value={form.companyName} onChange={(e) => set({ companyName: e.target.value })} data-testid="customer-company-name" />
        </Field>
        <Field label={t('customers.tradeName')} error={err('tradeName')}>
          <input value={form.tradeName} onChange={(e) => set({ tradeName: e.target.value })} data-testid="customer-trade-name" />
        </Field>
        <Field label={t('customers.personInCharge')} error={err('personInCharge')}>
          <input value={form.personInCharge} onChange={(e) => set({ personInCharge: e.target.value })} data-testid="customer-person" />
        </Field>
        <Field label={t('customers.phone')} error={err('phone')}>
          <input type="tel" value={form.phone} onChange={(e) => set({ phone: e.target.value })} data-testid="customer-phone" />
        </Field>
        <Field label={t('customers.email')} error={err('email')}>
          <input type="email" value={form.email} onChange={(e) => set({ email: e.target.value })} data-testid="customer-email" />
        </Field>
        <Field label={t('customers.seller')}>
          <input value={form.seller ?? ''} onChange={(e) => set({ seller: e.target.value || null })} />
        </Field>
        {form.type === 'white-label' && (
          <Field label={t('customers.whiteLabelUrl')} error={err('whiteLabelUrl')}>
            <input value={form.whiteLabelUrl ?? ''} onChange={(e) => set({ whiteLabelUrl: e.target.value || null })} data-testid="customer-url" />
          </Field>
        )}
        <fieldset className="form-wide">
          <legend>{t('customers.quantities')}</legend>
          {editing && <p className="muted small">{t('customers.quantitiesOnEdit')}</p>}
          {!editing && CATEGORIES.map((category) => (
            <Field key={category} label={t(`credits.categories.${category}`)} error={err(`quantities.${category}`)}>
              <input
                type="number"
                min={0}
                step={1}
                value={form.quantities[category]}
                onChange={(e) => set({ quantities: { ...form.quantities, [category]: Number(e.target.value) } })}
                data-testid={`customer-quantity-${category}`}
              />
            </Field>
          ))}
        </fieldset>
        <fieldset className="form-wide">
          <legend>{t('customers.queryTypes')}</legend>
          {shownTypes.map(({ key, name }) => (
            <label key={key} className="check">
              <input
                type="checkbox"
                checked={form.enabledQueryTypes.includes(key)}
                disabled={!mayQuery.includes(key) && !form.enabledQueryTypes.includes(key)}
                title={!mayQuery.includes(key) ? t('customers.parentLacks') : undefined}
                onChange={(e) =>
                  set({
                    enabledQueryTypes: e.target.checked
                      ? [...form.enabledQueryTypes, key]
                      : form.enabledQueryTypes.filter((k) => k !== key),
                  })
                }
              />
              {name}
            </label>
          ))}
          {err('enabledQueryTypes') && <small className="field-error">{err('enabledQueryTypes')}</small>}
        </fieldset>
        {layouts.length > 0 && (
          <fieldset className="form-wide" data-testid="customer-layouts">
            <legend>{t('customers.layouts')}</legend>
            {layouts.map((layout) => (
              <label key={layout.id} className="check">
                <input
                  type="checkbox"
                  checked={chosenLayouts.includes(layout.id)}
                  disabled={!mayLayout.includes(layout.id) && !chosenLayouts.includes(layout.id)}
                  title={!mayLayout.includes(layout.id) ? t('customers.parentLacks') : undefined}
                  onChange={(e) =>
                    set({
                      enabledLayouts: e.target.checked
                        ? [...chosenLayouts, layout.id]
                        : chosenLayouts.filter((k) => k !== layout.id),
                    })
                  }
                  data-testid="customer-layout"
                />
                {layout.fileName} ({layout.acceptedExtension.toUpperCase()} → {layout.returnExtension.toUpperCase()})
              </label>
            ))}
          </fieldset>
        )}
        <fieldset className="form-wide">
          <legend>{t('customers.options')}</legend>
          <label className="check">
            <input type="checkbox" checked={form.defaultQuery} onChange={(e) => set({ defaultQuery: e.target.checked })} />
            {t('customers.defaultQuery')}
          </label>
          <label className="check">
            <input type="checkbox" checked={form.consultProtest} onChange={(e) => set({ consultProtest: e.target.checked })} />
            {t('customers.consultProtest')}
          </label>
          <label className="check">
            <input type="checkbox" checked={form.panelAccess} onChange={(e) => set({ panelAccess: e.target.checked })} />
            {t('customers.panel')}
          </label>
          <label className="check">
            <input type="checkbox" checked={form.apiAccess} onChange={(e) => set({ apiAccess: e.target.checked })} />
            {t('customers.api')}
          </label>
          {err('access') && <small className="field-error">{err('access')}</small>}
        </fieldset>
        {editing && (
          <fieldset className="form-wide" data-testid="customer-toggles">
            <legend>{t('customers.permissions')}</legend>
            {TOGGLE_NAMES.map((name) => (
              <label key={name} className="check">
                <input
                  type="checkbox"
                  checked={toggles[name] === true}
                  disabled={!mayToggle[name] && toggles[name] !== true}
                  onChange={(e) => setToggles({ ...toggles, [name]: e.target.checked })}
                  data-testid={`customer-toggle-${name}`}
                />
                {t(`customers.toggles.${name}`)}
                {!mayToggle[name] && <small className="muted"> ({t('customers.parentLacks')})</small>}
              </label>
            ))}
          </fieldset>
        )}
        {serverText && (
          <div className="alert alert-error form-wide" role="alert" data-testid="customer-error">
            {serverText}
          </div>
        )}
        <div className="actions form-wide">
          <button type="submit" className="btn btn-primary" disabled={isLoading} data-testid="customer-submit">
            {isLoading ? t('credits.grant.saving') : editing ? t('customers.saveChanges') : t('customers.save')}
          </button>
        </div>
      </form>
      {editing && id && (
        <section className="card" data-testid="customer-brand">
          <h2>{t('brand.section')}</h2>
          <p className="muted small">{t('brand.sectionHint')}</p>
          <BrandEditor groupId={id} />
        </section>
      )}
    </div>
  )
}
