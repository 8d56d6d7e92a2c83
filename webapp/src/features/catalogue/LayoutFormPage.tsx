import { useEffect, useState, type FormEvent } from 'react'
import { useTranslation } from 'react-i18next'
import { Link, useNavigate, useParams } from 'react-router'
import Field from '../../components/FormField'
import Spinner from '../../components/Spinner'
import { errorText } from '../../components/errorText'
import { useNotify } from '../../components/feedback'
import { useAppSelector } from '../../store/hooks'
import {
  useAddLayoutMutation,
  useEditLayoutMutation,
  useGetLayoutQuery,
  usePreviewLayoutMutation,
  type LayoutRequest,
} from '../../store/generated/bemteviApi'
import {
  EMPTY_LAYOUT,
  EMPTY_ROW,
  EXTENSIONS,
  FIELD_TYPES,
  layoutErrors,
  layoutFormOf,
  layoutRequest,
  type LayoutForm,
  type Message,
  type RowForm,
} from './validation'
import './catalogue.css'

/** How long typing pauses before the preview asks the server (ms). */
const PREVIEW_DELAY = 250

/** add-new-layout/:uniqueKey?/:id?: register a layout, or edit the one named, with a live preview. */
export default function LayoutFormPage() {
  const { t, i18n } = useTranslation()
  const { id } = useParams()
  const navigate = useNavigate()
  const notify = useNotify()
  const position = useAppSelector((s) => s.session.lastPosition)
  const editing = !!id
  const loaded = useGetLayoutQuery({ layoutId: id ?? '', position }, { skip: !id, refetchOnMountOrArgChange: true })
  const [form, setForm] = useState<LayoutForm>(EMPTY_LAYOUT)
  // Shown once a save was tried; from then on they follow the typing.
  const [tried, setTried] = useState(false)
  const errors: Record<string, Message> = tried ? layoutErrors(form) : {}
  const [sample, setSample] = useState('')
  const [add, adding] = useAddLayoutMutation()
  const [edit, editingState] = useEditLayoutMutation()
  const [preview, previewed] = usePreviewLayoutMutation()
  const { isLoading, error } = editing ? editingState : adding
  const set = (patch: Partial<LayoutForm>) => setForm((f) => ({ ...f, ...patch }))
  const setRow = (index: number, patch: Partial<RowForm>) =>
    setForm((f) => ({ ...f, rows: f.rows.map((r, i) => (i === index ? { ...r, ...patch } : r)) }))
  const err = (field: string) => {
    const found = errors[field]
    if (!found) return undefined
    const values = found.values ? Object.fromEntries(Object.entries(found.values).map(([k, v]) => [k, t(v)])) : undefined
    return t(found.key, values)
  }

  const detail = loaded.data?.data
  const [filledFor, setFilledFor] = useState<string | null>(null)
  if (detail && detail.id !== filledFor) {
    setFilledFor(detail.id)
    setForm(layoutFormOf(detail))
  }

  // The live preview: the sample line read by the entry rows and written by the exit rows, by the
  // same code the batches use (the server's), asked once typing pauses.
  const request: LayoutRequest = layoutRequest(form)
  const requestText = JSON.stringify(request)
  useEffect(() => {
    if (!sample) return
    const timer = window.setTimeout(() => {
      void preview({ layoutPreviewRequest: { layout: JSON.parse(requestText) as LayoutRequest, sample } })
    }, PREVIEW_DELAY)
    return () => window.clearTimeout(timer)
  }, [requestText, sample, preview])

  async function submit(event: FormEvent) {
    event.preventDefault()
    const found = layoutErrors(form)
    setTried(true)
    if (Object.keys(found).length > 0) return
    const result = id ? await edit({ layoutId: id, layoutRequest: request }) : await add({ layoutRequest: request })
    if ('data' in result && result.data) {
      notify({ type: 'positive', message: t('catalogue.layouts.saved') })
      void navigate('/layout-list')
    }
  }

  if (editing && loaded.isLoading) return <Spinner />
  if (editing && loaded.isError)
    return (
      <div className="page catalogue-form">
        <div className="alert alert-error" role="alert">
          {errorText(loaded.error, t, (k) => i18n.exists(k))}
        </div>
        <Link to="/layout-list" className="btn">
          {t('catalogue.backToList')}
        </Link>
      </div>
    )

  const shown = sample ? previewed.data?.data : undefined
  const extensionSelect = (field: 'acceptedExtension' | 'returnExtension') => (
    <Field label={t(`catalogue.layouts.${field}`)} error={err(field)}>
      <select value={form[field]} onChange={(e) => set({ [field]: e.target.value })} data-testid={`layout-${field}`}>
        {EXTENSIONS.map((ext) => (
          <option key={ext} value={ext}>
            {ext.toUpperCase()}
          </option>
        ))}
      </select>
    </Field>
  )
  return (
    <div className="page catalogue-form">
      <div className="page-header">
        <h1>{editing ? t('catalogue.layouts.editTitle') : t('catalogue.layouts.addTitle')}</h1>
        <Link to="/layout-list" className="btn">
          {t('catalogue.backToList')}
        </Link>
      </div>
      <form className="card form-grid" onSubmit={(e) => void submit(e)} noValidate data-testid="layout-form">
        <Field label={t('catalogue.layouts.fileName')} error={err('fileName')}>
          <input value={form.fileName} maxLength={120} onChange={(e) => set({ fileName: e.target.value })} data-testid="layout-file-name" />
        </Field>
        <Field label={t('catalogue.layouts.finalFileName')} error={err('finalFileName')}>
          <input
            value={form.finalFileName}
            maxLength={120}
            onChange={(e) => set({ finalFileName: e.target.value })}
            data-testid="layout-final-file-name"
          />
        </Field>
        {extensionSelect('acceptedExtension')}
        {extensionSelect('returnExtension')}
        <Field label={t('catalogue.layouts.table')} error={err('table')}>
          <input value={form.table} maxLength={120} onChange={(e) => set({ table: e.target.value })} data-testid="layout-table-name" />
        </Field>
        <Field label={t('catalogue.layouts.kind')}>
          <select value={form.kind} onChange={(e) => set({ kind: e.target.value as LayoutForm['kind'] })} data-testid="layout-kind">
            {(['delimited', 'fixed'] as const).map((kind) => (
              <option key={kind} value={kind}>
                {t(`catalogue.layouts.kinds.${kind}`)}
              </option>
            ))}
          </select>
        </Field>
        {form.kind === 'delimited' && (
          <Field label={t('catalogue.layouts.delimiter')} error={err('delimiter')}>
            <input value={form.delimiter} maxLength={4} onChange={(e) => set({ delimiter: e.target.value })} data-testid="layout-delimiter" />
          </Field>
        )}
        <label className="check form-wide">
          <input type="checkbox" checked={form.firstLine === true} onChange={(e) => set({ firstLine: e.target.checked })} />
          {t('catalogue.layouts.firstLine')}
        </label>

        <section className="form-wide layout-rows" aria-label={t('catalogue.layouts.rows')} data-testid="layout-rows">
          <h2>{t('catalogue.layouts.rows')}</h2>
          {form.rows.map((row, index) => (
            <div className="layout-row" key={index} data-testid="layout-row-form">
              <Field label={t('catalogue.layouts.row.direction')}>
                <select value={row.direction} onChange={(e) => setRow(index, { direction: e.target.value as RowForm['direction'] })}>
                  {(['entry', 'exit'] as const).map((d) => (
                    <option key={d} value={d}>
                      {t(`catalogue.layouts.directions.${d}`)}
                    </option>
                  ))}
                </select>
              </Field>
              <Field label={t('catalogue.layouts.row.name')} error={err(`rows.${index}.name`)}>
                <input value={row.name} maxLength={120} onChange={(e) => setRow(index, { name: e.target.value })} data-testid="layout-row-name" />
              </Field>
              <Field label={t('catalogue.layouts.row.type')}>
                <select value={row.type} onChange={(e) => setRow(index, { type: e.target.value as RowForm['type'] })} data-testid="layout-row-type">
                  {FIELD_TYPES.map((type) => (
                    <option key={type} value={type}>
                      {t(`catalogue.layouts.types.${type}`)}
                    </option>
                  ))}
                </select>
              </Field>
              <Field label={t('catalogue.layouts.row.order')} error={err(`rows.${index}.order`)}>
                <input type="number" min={1} value={row.order} onChange={(e) => setRow(index, { order: e.target.value })} data-testid="layout-row-order" />
              </Field>
              <Field label={t('catalogue.layouts.row.size')} error={err(`rows.${index}.size`)}>
                <input type="number" min={1} value={row.size} onChange={(e) => setRow(index, { size: e.target.value })} data-testid="layout-row-size" />
              </Field>
              <Field label={t('catalogue.layouts.row.format')}>
                <input value={row.format} maxLength={120} onChange={(e) => setRow(index, { format: e.target.value })} />
              </Field>
              <button
                type="button"
                className="btn layout-row-remove"
                onClick={() => set({ rows: form.rows.filter((_r, i) => i !== index) })}
                data-testid="layout-row-remove"
              >
                {t('catalogue.layouts.row.remove')}
              </button>
            </div>
          ))}
          {err('rows') && (
            <small className="field-error" data-testid="layout-rows-error">
              {err('rows')}
            </small>
          )}
          <button
            type="button"
            className="btn"
            onClick={() => set({ rows: [...form.rows, { ...EMPTY_ROW, order: String(form.rows.filter((r) => r.direction === 'entry').length + 1) }] })}
            data-testid="layout-row-add"
          >
            {t('catalogue.layouts.addRow')}
          </button>
        </section>

        <section className="form-wide layout-preview" aria-label={t('catalogue.layouts.preview')} data-testid="layout-preview">
          <h2>{t('catalogue.layouts.preview')}</h2>
          <p className="muted small">{t('catalogue.layouts.previewHint')}</p>
          <Field label={t('catalogue.layouts.sample')}>
            <input className="mono" value={sample} maxLength={1000} onChange={(e) => setSample(e.target.value)} data-testid="layout-sample" />
          </Field>
          {sample && previewed.error && (
            <div className="alert alert-error" role="alert" data-testid="layout-preview-error">
              {errorText(previewed.error, t, (k) => i18n.exists(k))}
            </div>
          )}
          {shown && !previewed.error && (
            <>
              <h3>{t('catalogue.layouts.values')}</h3>
              {Object.keys(shown.values).length === 0 ? (
                <p className="muted">{t('catalogue.layouts.noValues')}</p>
              ) : (
                <dl className="preview-values" data-testid="layout-preview-values">
                  {Object.entries(shown.values).map(([name, value]) => (
                    <div key={name}>
                      <dt>{name}</dt>
                      <dd className="mono">{value === '' ? '-' : value}</dd>
                    </div>
                  ))}
                </dl>
              )}
              <h3>{t('catalogue.layouts.exitLine')}</h3>
              <pre className="mono preview-line" data-testid="layout-preview-exit">
                {shown.exitLine}
              </pre>
              <small className="muted">{t('catalogue.layouts.lineLength', { count: shown.exitLine.length })}</small>
            </>
          )}
        </section>

        {error && (
          <div className="alert alert-error form-wide" role="alert" data-testid="layout-error">
            {errorText(error, t, (k) => i18n.exists(k))}
          </div>
        )}
        <div className="form-wide form-actions">
          <button type="submit" className="btn btn-primary" disabled={isLoading} data-testid="layout-save">
            {editing ? t('catalogue.saveChanges') : t('catalogue.save')}
          </button>
        </div>
      </form>
    </div>
  )
}
