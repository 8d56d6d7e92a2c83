import { useEffect, useState } from 'react'
import { useTranslation } from 'react-i18next'
import { useParams } from 'react-router'
import Alert from '@mui/material/Alert'
import Box from '@mui/material/Box'
import Button from '@mui/material/Button'
import Paper from '@mui/material/Paper'
import Typography from '@mui/material/Typography'
import { errorText } from '../../components/errorText'
import FormPage from '../../components/form/FormPage'
import { useLoadedForm, useSaveAndReturn } from '../../components/form/formHooks'
import { CheckInput, FormSection, SelectInput, TextInput } from '../../components/form/fields'
import { WIDE } from '../../components/form/formHooks'
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
  const position = useAppSelector((s) => s.session.lastPosition)
  const editing = !!id
  const loaded = useGetLayoutQuery({ layoutId: id ?? '', position }, { skip: !id, refetchOnMountOrArgChange: true })
  const [form, set, setForm] = useLoadedForm(EMPTY_LAYOUT, loaded.data?.data, (d) => d.id, layoutFormOf)
  // Shown once a save was tried; from then on they follow the typing.
  const [tried, setTried] = useState(false)
  const errors: Record<string, Message> = tried ? layoutErrors(form) : {}
  const [sample, setSample] = useState('')
  const [add, adding] = useAddLayoutMutation()
  const [edit, editingState] = useEditLayoutMutation()
  const [preview, previewed] = usePreviewLayoutMutation()
  const { isLoading, error } = editing ? editingState : adding
  const saved = useSaveAndReturn('/layout-list', t('catalogue.layouts.saved'))
  const setRow = (index: number, patch: Partial<RowForm>) =>
    setForm((f) => ({ ...f, rows: f.rows.map((r, i) => (i === index ? { ...r, ...patch } : r)) }))
  const err = (field: string) => {
    const found = errors[field]
    if (!found) return undefined
    const values = found.values ? Object.fromEntries(Object.entries(found.values).map(([k, v]) => [k, t(v)])) : undefined
    return t(found.key, values)
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

  async function submit() {
    const found = layoutErrors(form)
    setTried(true)
    if (Object.keys(found).length > 0) return
    saved(id ? await edit({ layoutId: id, layoutRequest: request }) : await add({ layoutRequest: request }))
  }

  const shown = sample ? previewed.data?.data : undefined
  const extensionSelect = (field: 'acceptedExtension' | 'returnExtension') => (
    <SelectInput
      label={t(`catalogue.layouts.${field}`)}
      value={form[field]}
      onChange={(value) => set({ [field]: value })}
      options={EXTENSIONS.map((ext) => ({ value: ext as string, label: ext.toUpperCase() }))}
      error={err(field)}
      testId={`layout-${field}`}
    />
  )
  return (
    <FormPage
      title={editing ? t('catalogue.layouts.editTitle') : t('catalogue.layouts.addTitle')}
      backTo="/layout-list"
      backLabel={t('catalogue.backToList')}
      loading={editing && loaded.isLoading}
      loadError={editing && loaded.isError ? loaded.error : undefined}
      onSubmit={submit}
      saving={isLoading}
      submitLabel={editing ? t('catalogue.saveChanges') : t('catalogue.save')}
      saveError={error}
      testId="layout-form"
      submitTestId="layout-save"
      errorTestId="layout-error"
    >
      <TextInput label={t('catalogue.layouts.fileName')} value={form.fileName} maxLength={120} onChange={(fileName) => set({ fileName })} error={err('fileName')} testId="layout-file-name" />
      <TextInput
        label={t('catalogue.layouts.finalFileName')}
        value={form.finalFileName}
        maxLength={120}
        onChange={(finalFileName) => set({ finalFileName })}
        error={err('finalFileName')}
        testId="layout-final-file-name"
      />
      {extensionSelect('acceptedExtension')}
      {extensionSelect('returnExtension')}
      <TextInput label={t('catalogue.layouts.table')} value={form.table} maxLength={120} onChange={(table) => set({ table })} error={err('table')} testId="layout-table-name" />
      <SelectInput
        label={t('catalogue.layouts.kind')}
        value={form.kind}
        onChange={(kind: LayoutForm['kind']) => set({ kind })}
        options={(['delimited', 'fixed'] as const).map((kind) => ({ value: kind, label: t(`catalogue.layouts.kinds.${kind}`) }))}
        testId="layout-kind"
      />
      {form.kind === 'delimited' && (
        <TextInput label={t('catalogue.layouts.delimiter')} value={form.delimiter ?? ''} maxLength={4} onChange={(delimiter) => set({ delimiter })} error={err('delimiter')} testId="layout-delimiter" />
      )}
      <CheckInput label={t('catalogue.layouts.firstLine')} checked={form.firstLine === true} onChange={(firstLine) => set({ firstLine })} wide />

      <Box component="section" sx={{ ...WIDE, display: 'grid', gap: 1.5, justifyItems: 'start' }} aria-label={t('catalogue.layouts.rows')} data-testid="layout-rows">
        <FormSection>{t('catalogue.layouts.rows')}</FormSection>
        {form.rows.map((row, index) => (
          <Paper
            variant="outlined"
            key={index}
            data-testid="layout-row-form"
            sx={{
              p: 1.5,
              width: '100%',
              boxSizing: 'border-box',
              display: 'grid',
              gap: 1.5,
              alignItems: 'start',
              gridTemplateColumns: { xs: 'minmax(0, 1fr)', sm: 'repeat(3, minmax(0, 1fr))', md: 'repeat(6, minmax(0, 1fr)) auto' },
            }}
          >
            <SelectInput
              label={t('catalogue.layouts.row.direction')}
              value={row.direction}
              onChange={(direction: RowForm['direction']) => setRow(index, { direction })}
              options={(['entry', 'exit'] as const).map((d) => ({ value: d, label: t(`catalogue.layouts.directions.${d}`) }))}
            />
            <TextInput label={t('catalogue.layouts.row.name')} value={row.name} maxLength={120} onChange={(name) => setRow(index, { name })} error={err(`rows.${index}.name`)} testId="layout-row-name" />
            <SelectInput
              label={t('catalogue.layouts.row.type')}
              value={row.type}
              onChange={(type: RowForm['type']) => setRow(index, { type })}
              options={FIELD_TYPES.map((type) => ({ value: type, label: t(`catalogue.layouts.types.${type}`) }))}
              testId="layout-row-type"
            />
            <TextInput label={t('catalogue.layouts.row.order')} type="number" min={1} value={row.order} onChange={(order) => setRow(index, { order })} error={err(`rows.${index}.order`)} testId="layout-row-order" />
            <TextInput label={t('catalogue.layouts.row.size')} type="number" min={1} value={row.size} onChange={(size) => setRow(index, { size })} error={err(`rows.${index}.size`)} testId="layout-row-size" />
            <TextInput label={t('catalogue.layouts.row.format')} value={row.format ?? ''} maxLength={120} onChange={(format) => setRow(index, { format })} />
            <Button
              color="error"
              onClick={() => set({ rows: form.rows.filter((_r, i) => i !== index) })}
              data-testid="layout-row-remove"
              sx={{ justifySelf: 'start', alignSelf: 'center' }}
            >
              {t('catalogue.layouts.row.remove')}
            </Button>
          </Paper>
        ))}
        {err('rows') && (
          <Typography variant="caption" color="error" data-testid="layout-rows-error">
            {err('rows')}
          </Typography>
        )}
        <Button
          variant="outlined"
          onClick={() => set({ rows: [...form.rows, { ...EMPTY_ROW, order: String(form.rows.filter((r) => r.direction === 'entry').length + 1) }] })}
          data-testid="layout-row-add"
        >
          {t('catalogue.layouts.addRow')}
        </Button>
      </Box>

      <Box
        component="section"
        sx={{ ...WIDE, p: 2, border: 1, borderStyle: 'dashed', borderColor: 'primary.main', borderRadius: 1, minWidth: 0, display: 'grid', gap: 1 }}
        aria-label={t('catalogue.layouts.preview')}
        data-testid="layout-preview"
      >
        <FormSection>{t('catalogue.layouts.preview')}</FormSection>
        <Typography variant="body2" color="text.secondary">
          {t('catalogue.layouts.previewHint')}
        </Typography>
        <TextInput label={t('catalogue.layouts.sample')} value={sample} maxLength={1000} onChange={setSample} testId="layout-sample" />
        {sample && previewed.error && (
          <Alert severity="error" role="alert" data-testid="layout-preview-error">
            {errorText(previewed.error, t, (k) => i18n.exists(k))}
          </Alert>
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
      </Box>
    </FormPage>
  )
}
