import { useState, type FormEvent } from 'react'
import { useTranslation } from 'react-i18next'
import { Link, useNavigate, useParams } from 'react-router'
import Field from '../../components/FormField'
import Spinner from '../../components/Spinner'
import { errorText } from '../../components/errorText'
import { useNotify } from '../../components/feedback'
import { useAppSelector } from '../../store/hooks'
import {
  useAddQueryTypeMutation,
  useEditQueryTypeMutation,
  useGetQueryTypeQuery,
  type QueryTypeRequest,
  type QueryTypeView,
} from '../../store/generated/bemteviApi'
import { EMPTY_QUERY_TYPE, TOGGLES, queryTypeErrors, queryTypeRequest, type Message, type QueryTypeForm } from './validation'
import './catalogue.css'

function formOf(view: QueryTypeView): QueryTypeForm {
  return {
    name: view.name,
    description: view.description,
    icon: view.icon,
    badge: view.badge,
    toggles: { ...view.toggles },
    default: view.default,
    component: view.component as QueryTypeRequest['component'],
    cacheDays: String(view.cacheDays),
    validityDays: String(view.validityDays),
  }
}

/** add-new-query/:key?: register a query type, or edit the one named. */
export default function QueryTypeFormPage() {
  const { t, i18n } = useTranslation()
  const { key } = useParams()
  const navigate = useNavigate()
  const notify = useNotify()
  const position = useAppSelector((s) => s.session.lastPosition)
  const editing = !!key
  const loaded = useGetQueryTypeQuery({ key: key ?? '', position }, { skip: !key, refetchOnMountOrArgChange: true })
  const [form, setForm] = useState<QueryTypeForm>(EMPTY_QUERY_TYPE)
  // Shown once a save was tried; from then on they follow the typing.
  const [tried, setTried] = useState(false)
  const errors: Record<string, Message> = tried ? queryTypeErrors(form) : {}
  const [add, adding] = useAddQueryTypeMutation()
  const [edit, editingState] = useEditQueryTypeMutation()
  const { isLoading, error } = editing ? editingState : adding
  const set = (patch: Partial<QueryTypeForm>) => setForm((f) => ({ ...f, ...patch }))
  const err = (field: string) => {
    const found = errors[field]
    return found ? t(found.key, found.values) : undefined
  }

  // The loaded type fills the form once (while rendering); later answers never overwrite typing.
  const detail = loaded.data?.data
  const [filledFor, setFilledFor] = useState<string | null>(null)
  if (detail && detail.key !== filledFor) {
    setFilledFor(detail.key)
    setForm(formOf(detail))
  }

  async function submit(event: FormEvent) {
    event.preventDefault()
    const found = queryTypeErrors(form)
    setTried(true)
    if (Object.keys(found).length > 0) return
    const body = queryTypeRequest(form)
    const result = key ? await edit({ key, queryTypeRequest: body }) : await add({ queryTypeRequest: body })
    if ('data' in result && result.data) {
      notify({ type: 'positive', message: t('catalogue.queryTypes.saved') })
      void navigate('/queries-list')
    }
  }

  if (editing && loaded.isLoading) return <Spinner />
  if (editing && loaded.isError)
    return (
      <div className="page catalogue-form">
        <div className="alert alert-error" role="alert">
          {errorText(loaded.error, t, (k) => i18n.exists(k))}
        </div>
        <Link to="/queries-list" className="btn">
          {t('catalogue.backToList')}
        </Link>
      </div>
    )

  return (
    <div className="page catalogue-form">
      <div className="page-header">
        <h1>{editing ? t('catalogue.queryTypes.editTitle') : t('catalogue.queryTypes.addTitle')}</h1>
        <Link to="/queries-list" className="btn">
          {t('catalogue.backToList')}
        </Link>
      </div>
      <form className="card form-grid" onSubmit={(e) => void submit(e)} noValidate data-testid="query-type-form">
        <Field label={t('catalogue.queryTypes.name')} error={err('name')}>
          <input value={form.name} maxLength={120} onChange={(e) => set({ name: e.target.value })} data-testid="query-type-name" />
        </Field>
        {editing && (
          <Field label={t('catalogue.queryTypes.key')}>
            <input value={key} readOnly disabled />
          </Field>
        )}
        <Field label={t('catalogue.queryTypes.badge')} error={err('badge')}>
          <input value={form.badge} maxLength={120} onChange={(e) => set({ badge: e.target.value })} data-testid="query-type-badge" />
        </Field>
        <Field label={t('catalogue.queryTypes.icon')} error={err('icon')}>
          <input value={form.icon} maxLength={120} placeholder="person" onChange={(e) => set({ icon: e.target.value })} data-testid="query-type-icon" />
        </Field>
        <Field label={t('catalogue.queryTypes.component')}>
          <select
            value={form.component}
            onChange={(e) => set({ component: e.target.value as QueryTypeRequest['component'] })}
            data-testid="query-type-component"
          >
            {(['person', 'company'] as const).map((c) => (
              <option key={c} value={c}>
                {t(`catalogue.queryTypes.components.${c}`)}
              </option>
            ))}
          </select>
        </Field>
        <div className="form-wide">
          <Field label={t('catalogue.queryTypes.description')} error={err('description')}>
            <textarea
              rows={3}
              maxLength={1000}
              value={form.description}
              onChange={(e) => set({ description: e.target.value })}
              data-testid="query-type-description"
            />
          </Field>
        </div>
        <Field label={t('catalogue.queryTypes.cacheDays')} error={err('cacheDays')}>
          <input
            type="number"
            min={0}
            max={3650}
            value={form.cacheDays}
            onChange={(e) => set({ cacheDays: e.target.value })}
            data-testid="query-type-cache"
          />
        </Field>
        <Field label={t('catalogue.queryTypes.validityDays')} error={err('validityDays')}>
          <input
            type="number"
            min={0}
            max={3650}
            value={form.validityDays}
            onChange={(e) => set({ validityDays: e.target.value })}
            data-testid="query-type-validity"
          />
        </Field>
        <fieldset className="form-wide">
          <legend>{t('catalogue.queryTypes.toggles')}</legend>
          {TOGGLES.map((name) => (
            <label key={name} className="check">
              <input
                type="checkbox"
                checked={form.toggles[name] === true}
                onChange={(e) => set({ toggles: { ...form.toggles, [name]: e.target.checked } })}
                data-testid={`query-type-toggle-${name}`}
              />
              {t(`catalogue.queryTypes.toggle.${name}`)}
            </label>
          ))}
          {err('cpf') && <small className="field-error">{err('cpf')}</small>}
        </fieldset>
        <fieldset className="form-wide">
          <legend>{t('catalogue.queryTypes.default')}</legend>
          <label className="check">
            <input
              type="checkbox"
              checked={form.default === true}
              onChange={(e) => set({ default: e.target.checked })}
              data-testid="query-type-default"
            />
            {t('catalogue.queryTypes.default')}
          </label>
          <small className="muted">{t('catalogue.queryTypes.defaultHint')}</small>
        </fieldset>
        {error && (
          <div className="alert alert-error form-wide" role="alert" data-testid="query-type-error">
            {errorText(error, t, (k) => i18n.exists(k))}
          </div>
        )}
        <div className="form-wide form-actions">
          <button type="submit" className="btn btn-primary" disabled={isLoading} data-testid="query-type-save">
            {editing ? t('catalogue.saveChanges') : t('catalogue.save')}
          </button>
        </div>
      </form>
    </div>
  )
}
