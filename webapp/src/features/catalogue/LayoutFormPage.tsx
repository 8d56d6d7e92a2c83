import { useEffect, useState } from 'react'
import { useTranslation } from 'react-i18next'
import { useParams } from 'react-router'
import Alert from '@mui/material/Alert'
import Box from '@mui/material/Box'
import Button from '@mui/material/Button'
import Paper from '@mui/material/Paper'
import ToggleButton from '@mui/material/ToggleButton'
import ToggleButtonGroup from '@mui/material/ToggleButtonGroup'
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
  useExitFieldsQuery,
  useGetLayoutQuery,
  usePreviewLayoutMutation,
  usePreviewLayoutRecordMutation,
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
import ExitFieldPicker from './ExitFieldPicker'
import { fieldOf, splitRows } from './exitFields'
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
  const [previewRecord, recordShown] = usePreviewLayoutRecordMutation()
  const [demoKind, setDemoKind] = useState<'cpf' | 'cnpj'>('cpf')
  const exitFields = useExitFieldsQuery().data?.data ?? []
  const { entries, exits } = splitRows(form.rows)
  // The entry rows are edited here as before; the exit rows only through the picker (their order is its list's).
  const setEntry = (index: number, patch: Partial<RowForm>) =>
    setForm((f) => {
      const split = splitRows(f.rows)
      return {
        ...f,
        rows: [...split.entries.map((r, i) => (i === index ? { ...r, ...patch } : r)), ...split.exits],
      }
    })
  const setExits = (rows: RowForm[]) => setForm((f) => ({ ...f, rows: [...splitRows(f.rows).entries, ...rows] }))
  const { isLoading, error } = editing ? editingState : adding
  const saved = useSaveAndReturn('/layout-list', t('catalogue.layouts.saved'))
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
      void preview({
        layoutPreviewRequest: {
          layout: JSON.parse(requestText) as LayoutRequest,
          sample,
        },
      })
    }, PREVIEW_DELAY)
    return () => window.clearTimeout(timer)
  }, [requestText, sample, preview])
  // The real record's preview: one record of the demo data through the exit rows (free, for the author).
  const hasExits = exits.length > 0
  useEffect(() => {
    if (!hasExits) return
    const timer = window.setTimeout(() => {
      void previewRecord({
        layoutRecordPreviewRequest: {
          layout: JSON.parse(requestText) as LayoutRequest,
          kind: demoKind,
        },
      })
    }, PREVIEW_DELAY)
    return () => window.clearTimeout(timer)
  }, [requestText, demoKind, hasExits, previewRecord])

  async function submit() {
    const found = layoutErrors(form)
    setTried(true)
    if (Object.keys(found).length > 0) return
    saved(id ? await edit({ layoutId: id, layoutRequest: request }) : await add({ layoutRequest: request }))
  }

  const shown = sample ? previewed.data?.data : undefined
  const record = recordShown.data?.data
  const lang = i18n.language === 'en-US' ? 'en-US' : 'pt-BR'
  const extensionSelect = (field: 'acceptedExtension' | 'returnExtension') => (
    <SelectInput
      label={t(`catalogue.layouts.${field}`)}
      value={form[field]}
      onChange={(value) => set({ [field]: value })}
      options={EXTENSIONS.map((ext) => ({
        value: ext as string,
        label: ext.toUpperCase(),
      }))}
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
      <TextInput
        label={t('catalogue.layouts.fileName')}
        value={form.fileName}
        maxLength={120}
        onChange={(fileName) => set({ fileName })}
        error={err('fileName')}
        testId="layout-file-name"
      />
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
      <TextInput
        label={t('catalogue.layouts.table')}
        value={form.table}
        maxLength={120}
        onChange={(table) => set({ table })}
        error={err('table')}
        testId="layout-table-name"
      />
      <SelectInput
        label={t('catalogue.layouts.kind')}
        value={form.kind}
        onChange={(kind: LayoutForm['kind']) =>
          setForm((f) => ({
            ...f,
            kind,
            rows: f.rows.map((r) => {
              const field = r.direction === 'exit' && !r.size.trim() ? fieldOf(exitFields, r.name) : undefined
              return kind === 'fixed' && field ? { ...r, size: String(field.size) } : r
            }),
          }))
        }
        options={(['delimited', 'fixed'] as const).map((kind) => ({
          value: kind,
          label: t(`catalogue.layouts.kinds.${kind}`),
        }))}
        testId="layout-kind"
      />
      {form.kind === 'delimited' && (
        <TextInput
          label={t('catalogue.layouts.delimiter')}
          value={form.delimiter ?? ''}
          maxLength={4}
          onChange={(delimiter) => set({ delimiter })}
          error={err('delimiter')}
          testId="layout-delimiter"
        />
      )}
      <CheckInput
        label={t('catalogue.layouts.firstLine')}
        checked={form.firstLine === true}
        onChange={(firstLine) => set({ firstLine })}
        wide
      />

      <Box
        component="section"
        sx={{ ...WIDE, display: 'grid', gap: 1.5, justifyItems: 'start' }}
        aria-label={t('catalogue.layouts.entryRows')}
        data-testid="layout-rows"
      >
        <FormSection>{t('catalogue.layouts.entryRows')}</FormSection>
        {entries.map((row, index) => (
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
              gridTemplateColumns: {
                xs: 'minmax(0, 1fr)',
                sm: 'repeat(3, minmax(0, 1fr))',
                md: 'repeat(5, minmax(0, 1fr)) auto',
              },
            }}
          >
            <TextInput
              label={t('catalogue.layouts.row.name')}
              value={row.name}
              maxLength={120}
              onChange={(name) => setEntry(index, { name })}
              error={err(`rows.${index}.name`)}
              testId="layout-row-name"
            />
            <SelectInput
              label={t('catalogue.layouts.row.type')}
              value={row.type}
              onChange={(type: RowForm['type']) => setEntry(index, { type })}
              options={FIELD_TYPES.map((type) => ({
                value: type,
                label: t(`catalogue.layouts.types.${type}`),
              }))}
              testId="layout-row-type"
            />
            <TextInput
              label={t('catalogue.layouts.row.order')}
              type="number"
              min={1}
              value={row.order}
              onChange={(order) => setEntry(index, { order })}
              error={err(`rows.${index}.order`)}
              testId="layout-row-order"
            />
            <TextInput
              label={t('catalogue.layouts.row.size')}
              type="number"
              min={1}
              value={row.size}
              onChange={(size) => setEntry(index, { size })}
              error={err(`rows.${index}.size`)}
              testId="layout-row-size"
            />
            <TextInput
              label={t('catalogue.layouts.row.format')}
              value={row.format ?? ''}
              maxLength={120}
              onChange={(format) => setEntry(index, { format })}
            />
            <Button
              color="error"
              onClick={() =>
                set({
                  rows: [...entries.filter((_r, i) => i !== index), ...exits],
                })
              }
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
          onClick={() =>
            set({
              rows: [...entries, { ...EMPTY_ROW, order: String(entries.length + 1) }, ...exits],
            })
          }
          data-testid="layout-row-add"
        >
          {t('catalogue.layouts.addRow')}
        </Button>
      </Box>

      <Box
        component="section"
        sx={{ ...WIDE, display: 'grid', gap: 1, minWidth: 0 }}
        aria-label={t('catalogue.layouts.picker.title')}
        data-testid="layout-exit-fields"
      >
        <FormSection>{t('catalogue.layouts.picker.title')}</FormSection>
        <Typography variant="body2" color="text.secondary">
          {t('catalogue.layouts.picker.hint')}
        </Typography>
        <ExitFieldPicker fields={exitFields} entries={entries} rows={exits} fixed={form.kind === 'fixed'} onChange={setExits} />
      </Box>

      <Box
        component="section"
        sx={{
          ...WIDE,
          p: 2,
          border: 1,
          borderColor: 'primary.main',
          borderRadius: 1,
          minWidth: 0,
          display: 'grid',
          gap: 1,
        }}
        aria-label={t('catalogue.layouts.record.title')}
        data-testid="layout-record-preview"
      >
        <FormSection>{t('catalogue.layouts.record.title')}</FormSection>
        <Alert severity="info" data-testid="layout-record-free">
          {t('catalogue.layouts.record.free')}
        </Alert>
        <Box
          sx={{
            display: 'flex',
            gap: 1,
            alignItems: 'center',
            flexWrap: 'wrap',
          }}
        >
          <Typography variant="body2">{t('catalogue.layouts.record.kind')}</Typography>
          <ToggleButtonGroup size="small" exclusive value={demoKind} onChange={(_e, v: 'cpf' | 'cnpj' | null) => v && setDemoKind(v)}>
            <ToggleButton value="cpf" data-testid="layout-record-cpf">
              CPF
            </ToggleButton>
            <ToggleButton value="cnpj" data-testid="layout-record-cnpj">
              CNPJ
            </ToggleButton>
          </ToggleButtonGroup>
        </Box>
        {recordShown.error && hasExits && (
          <Alert severity="error" role="alert" data-testid="layout-record-error">
            {errorText(recordShown.error, t, (k) => i18n.exists(k))}
          </Alert>
        )}
        {record && hasExits && !recordShown.error && (
          <>
            <Typography variant="body2" color="text.secondary">
              {t('catalogue.layouts.record.hint', {
                document: record.document,
              })}
            </Typography>
            {!record.found && <Alert severity="warning">{t('catalogue.layouts.record.notFound')}</Alert>}
            <dl className="preview-values" data-testid="layout-record-values">
              {record.values.map(({ name, value }) => {
                const field = fieldOf(exitFields, name)
                return (
                  <div key={name} data-testid="layout-record-value" data-name={name}>
                    <dt>{field ? `${field.label[lang] ?? name} (${name})` : name}</dt>
                    <dd className="mono">{value === '' ? '-' : value}</dd>
                  </div>
                )
              })}
            </dl>
            {record.unknown.length > 0 && (
              <Alert severity="warning" data-testid="layout-record-unknown">
                {t('catalogue.layouts.record.unknown', {
                  names: record.unknown.join(', '),
                })}
              </Alert>
            )}
            <h3>{t('catalogue.layouts.exitLine')}</h3>
            <pre className="mono preview-line" data-testid="layout-record-line">
              {record.header ? `${record.header}\n` : ''}
              {record.exitLine}
            </pre>
          </>
        )}
      </Box>

      <Box
        component="section"
        sx={{
          ...WIDE,
          p: 2,
          border: 1,
          borderStyle: 'dashed',
          borderColor: 'primary.main',
          borderRadius: 1,
          minWidth: 0,
          display: 'grid',
          gap: 1,
        }}
        aria-label={t('catalogue.layouts.preview')}
        data-testid="layout-preview"
      >
        <FormSection>{t('catalogue.layouts.sampleTitle')}</FormSection>
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
            <small className="muted">
              {t('catalogue.layouts.lineLength', {
                count: shown.exitLine.length,
              })}
            </small>
          </>
        )}
      </Box>
    </FormPage>
  )
}
