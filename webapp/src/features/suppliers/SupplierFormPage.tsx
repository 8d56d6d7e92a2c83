import { useState, type FormEvent } from 'react'
import { useTranslation } from 'react-i18next'
import { Link, useNavigate, useParams } from 'react-router'
import { errorText } from '../../components/errorText'
import Field from '../../components/FormField'
import { useNotify } from '../../components/feedback'
import Spinner from '../../components/Spinner'
import { errorInfo } from '../../lib/errors'
import { useAppSelector } from '../../store/hooks'
import { useAddSupplierMutation, useEditSupplierMutation, useGetSupplierQuery } from '../../store/generated/bemteviApi'
import { EMPTY_SUPPLIER, formOf, requestOf, supplierErrors, type SupplierForm } from './validation'

const QUERY_TYPES = ['cpf-complete', 'cnpj-complete'] as const
const AUTH_METHODS = ['basic', 'bearer', 'token', 'prefix'] as const
const INPUT_TYPES = ['both', 'cpf', 'cnpj'] as const

export default function SupplierFormPage() {
  const { t, i18n } = useTranslation()
  const { id } = useParams()
  const navigate = useNavigate()
  const notify = useNotify()
  const position = useAppSelector((s) => s.session.lastPosition)
  const editing = !!id
  const loaded = useGetSupplierQuery({ supplierId: id ?? '', position }, { skip: !id, refetchOnMountOrArgChange: true })
  const detail = loaded.data?.data
  const [form, setForm] = useState<SupplierForm>(EMPTY_SUPPLIER)
  const [errors, setErrors] = useState<Record<string, string>>({})
  const [add, adding] = useAddSupplierMutation()
  const [edit, editingState] = useEditSupplierMutation()
  const { isLoading, error } = editing ? editingState : adding
  const set = (patch: Partial<SupplierForm>) => setForm((f) => ({ ...f, ...patch }))
  const err = (field: string) => (errors[field] ? t(errors[field]) : undefined)
  const stored = { password: detail?.passwordSet ?? false, token: detail?.tokenSet ?? false }

  // The loaded supplier fills the form once (derived while rendering, not in an effect).
  const [filledFor, setFilledFor] = useState<string | null>(null)
  if (detail && detail.id !== filledFor) {
    setFilledFor(detail.id)
    setForm(formOf(detail))
  }

  async function submit(event: FormEvent) {
    event.preventDefault()
    const found = supplierErrors(form, stored)
    setErrors(found)
    if (Object.keys(found).length > 0) return
    const result = id
      ? await edit({ supplierId: id, supplierRequest: requestOf(form) })
      : await add({ supplierRequest: requestOf(form) })
    if ('data' in result && result.data) {
      notify({ type: 'positive', message: t('suppliers.saved') })
      void navigate('/supplier-list')
    }
  }

  if (editing && loaded.isLoading) return <Spinner />
  if (editing && loaded.isError)
    return (
      <div className="page supplier-form">
        <div className="alert alert-error" role="alert">
          {errorText(loaded.error, t, (k) => i18n.exists(k))}
        </div>
        <Link to="/supplier-list" className="btn">
          {t('suppliers.backToList')}
        </Link>
      </div>
    )

  const server = error ? errorInfo(error) : null
  const takenField = (error as { data?: { field?: string } } | undefined)?.data?.field
  const serverText = !server
    ? null
    : server.code === 'duplicate' && takenField && i18n.exists(`suppliers.duplicates.${takenField}`)
      ? t(`suppliers.duplicates.${takenField}`)
      : errorText(error, t, (k) => i18n.exists(k))
  const secretHint = (set: boolean) => (editing ? (set ? t('suppliers.secretSet') : t('suppliers.secretNotSet')) : undefined)
  const text = (field: keyof SupplierForm, testId: string, type = 'text', placeholder?: string) => (
    <input
      type={type}
      value={form[field] as string}
      placeholder={placeholder}
      onChange={(e) => set({ [field]: e.target.value } as Partial<SupplierForm>)}
      aria-invalid={!!errors[field]}
      data-testid={testId}
    />
  )

  return (
    <div className="page supplier-form">
      <div className="page-header">
        <h1>{editing ? t('suppliers.editTitle') : t('suppliers.addTitle')}</h1>
        <Link to="/supplier-list" className="btn">
          {t('suppliers.backToList')}
        </Link>
      </div>
      <form className="card form-grid" onSubmit={submit} noValidate data-testid="supplier-form">
        <h2 className="form-wide">{t('suppliers.sections.general')}</h2>
        <Field label={t('suppliers.name')} error={err('name')}>
          {text('name', 'supplier-name')}
        </Field>
        <Field label={t('suppliers.contact')} error={err('contact')}>
          {text('contact', 'supplier-contact')}
        </Field>
        <Field label={t('suppliers.inputType')}>
          <select value={form.inputType} onChange={(e) => set({ inputType: e.target.value as SupplierForm['inputType'] })} data-testid="supplier-input">
            {INPUT_TYPES.map((v) => (
              <option key={v} value={v}>
                {t(`suppliers.inputTypes.${v}`)}
              </option>
            ))}
          </select>
        </Field>

        <h2 className="form-wide">{t('suppliers.sections.connection')}</h2>
        <Field label={t('suppliers.url')} error={err('url')}>
          {text('url', 'supplier-url', 'url', 'https://api.fornecedor.com.br')}
        </Field>
        <Field label={t('suppliers.server')} error={err('server')}>
          {text('server', 'supplier-server')}
        </Field>
        <Field label={t('suppliers.port')} error={err('port')}>
          {text('port', 'supplier-port', 'number')}
        </Field>
        <Field label={t('suppliers.baseComplement')}>{text('baseComplement', 'supplier-complement', 'text', '/api/v2')}</Field>
        <Field label={t('suppliers.route')} error={err('route')}>
          {text('route', 'supplier-route', 'text', '/pessoas/{document}')}
          <small className="muted">{t('suppliers.routeHint')}</small>
        </Field>
        <Field label={t('suppliers.httpMethod')}>
          <select value={form.httpMethod} onChange={(e) => set({ httpMethod: e.target.value as SupplierForm['httpMethod'] })} data-testid="supplier-method">
            <option value="GET">GET</option>
            <option value="POST">POST</option>
          </select>
        </Field>
        <div className="form-wide">
          <Field label={t('suppliers.requestBody')} error={err('requestBody')}>
            <textarea
              rows={4}
              value={form.requestBody}
              onChange={(e) => set({ requestBody: e.target.value })}
              aria-invalid={!!errors.requestBody}
              data-testid="supplier-body"
            />
            <small className="muted">{t('suppliers.requestBodyHint')}</small>
          </Field>
        </div>

        <h2 className="form-wide">{t('suppliers.sections.auth')}</h2>
        <Field label={t('suppliers.authMethod')}>
          <select value={form.authMethod} onChange={(e) => set({ authMethod: e.target.value as SupplierForm['authMethod'] })} data-testid="supplier-auth">
            {AUTH_METHODS.map((v) => (
              <option key={v} value={v}>
                {t(`suppliers.authMethods.${v}`)}
              </option>
            ))}
          </select>
        </Field>
        {form.authMethod === 'basic' && (
          <>
            <Field label={t('suppliers.username')} error={err('username')}>
              {text('username', 'supplier-username')}
            </Field>
            <Field label={t('suppliers.password')} error={err('password')}>
              {text('password', 'supplier-password', 'password')}
              {secretHint(stored.password) && <small className="muted">{secretHint(stored.password)}</small>}
            </Field>
          </>
        )}
        {form.authMethod === 'prefix' && (
          <Field label={t('suppliers.prefix')} error={err('prefix')}>
            {text('prefix', 'supplier-prefix')}
          </Field>
        )}
        {form.authMethod !== 'basic' && (
          <Field label={t('suppliers.token')} error={err('token')}>
            {text('token', 'supplier-token', 'password')}
            {secretHint(stored.token) && <small className="muted">{secretHint(stored.token)}</small>}
          </Field>
        )}
        <label className="check form-wide">
          <input type="checkbox" checked={form.embeddedInUrlBase} onChange={(e) => set({ embeddedInUrlBase: e.target.checked })} data-testid="supplier-embedded" />
          {t('suppliers.embeddedInUrlBase')}
        </label>
        <p className="muted small form-wide">{t('suppliers.secretsHint')}</p>

        <h2 className="form-wide">{t('suppliers.sections.usage')}</h2>
        <fieldset className="form-wide">
          <legend>{t('suppliers.allowedQueryTypes')}</legend>
          {QUERY_TYPES.map((key) => (
            <label key={key} className="check">
              <input
                type="checkbox"
                checked={form.allowedQueryTypes.includes(key)}
                onChange={(e) =>
                  set({
                    allowedQueryTypes: e.target.checked ? [...form.allowedQueryTypes, key] : form.allowedQueryTypes.filter((k) => k !== key),
                  })
                }
                data-testid={`supplier-query-${key}`}
              />
              {t(`suppliers.query.${key}`)}
            </label>
          ))}
          {err('allowedQueryTypes') && <small className="field-error">{err('allowedQueryTypes')}</small>}
        </fieldset>
        <Field label={t('suppliers.allowedLayouts')}>
          <input
            value={form.allowedLayouts.join(', ')}
            onChange={(e) => set({ allowedLayouts: e.target.value.split(',').map((s) => s.trim()).filter(Boolean) })}
            data-testid="supplier-layouts"
          />
          <small className="muted">{t('suppliers.allowedLayoutsHint')}</small>
        </Field>
        <Field label={t('suppliers.cacheDays')} error={err('cacheDays')}>
          {text('cacheDays', 'supplier-cache', 'number')}
        </Field>
        <Field label={t('suppliers.validityDays')} error={err('validityDays')}>
          {text('validityDays', 'supplier-validity', 'number')}
        </Field>
        <Field label={t('suppliers.maxBodyKb')} error={err('maxBodyKb')}>
          {text('maxBodyKb', 'supplier-max-body', 'number')}
          <small className="muted">{t('suppliers.maxBodyKbHint')}</small>
        </Field>
        {serverText && (
          <div className="alert alert-error form-wide" role="alert" data-testid="supplier-error">
            {serverText}
          </div>
        )}
        <div className="actions form-wide">
          <button type="submit" className="btn btn-primary" disabled={isLoading} data-testid="supplier-submit">
            {isLoading ? t('suppliers.saving') : editing ? t('suppliers.saveChanges') : t('suppliers.save')}
          </button>
        </div>
      </form>
    </div>
  )
}
