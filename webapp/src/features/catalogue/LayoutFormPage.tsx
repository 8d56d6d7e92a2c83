import { useTranslation } from 'react-i18next'
import { useParams } from 'react-router'
import Box from '@mui/material/Box'
import Button from '@mui/material/Button'
import Typography from '@mui/material/Typography'
import { useLoadedForm, useSaveAndReturn, WIDE } from '../../components/form/formHooks'
import { CheckInput, FormSection, SelectInput, TextInput } from '../../components/form/fields'
import { useAppSelector } from '../../store/hooks'
import { useAddLayoutMutation, useEditLayoutMutation, useExitFieldsQuery, useGetLayoutQuery, type LayoutRequest } from '../../store/generated/bemteviApi'
import { EMPTY_LAYOUT, EMPTY_ROW, EXTENSIONS, layoutErrors, layoutFormOf, layoutRequest, type LayoutForm, type RowForm } from './validation'
import CatalogueFormPage from './CatalogueFormPage'
import { useRuleErrors } from './ruleErrors'
import ExitFieldPicker from './ExitFieldPicker'
import LayoutEntryRow from './LayoutEntryRow'
import { LayoutRecordPreview, LayoutSamplePreview } from './LayoutPreviews'
import { fieldOf, splitRows } from './exitFields'
import './catalogue.css'

/** add-new-layout/:uniqueKey?/:id?: register a layout, or edit the one named, with a live preview. */
export default function LayoutFormPage() {
  const { t } = useTranslation()
  const { id } = useParams()
  const position = useAppSelector((s) => s.session.lastPosition)
  const editing = !!id
  const loaded = useGetLayoutQuery({ layoutId: id ?? '', position }, { skip: !id, refetchOnMountOrArgChange: true })
  const [form, set, setForm] = useLoadedForm(EMPTY_LAYOUT, loaded.data?.data, (d) => d.id, layoutFormOf)
  const { err, mayGo } = useRuleErrors(form, layoutErrors)
  const [add, adding] = useAddLayoutMutation()
  const [edit, editingState] = useEditLayoutMutation()
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
  const saved = useSaveAndReturn('/layout-list', t('catalogue.layouts.saved'))

  // The layout as the API takes it: what a save sends and what the previews read lines with.
  const request: LayoutRequest = layoutRequest(form)

  async function submit() {
    if (!mayGo()) return
    saved(id ? await edit({ layoutId: id, layoutRequest: request }) : await add({ layoutRequest: request }))
  }

  const text = (field: 'fileName' | 'finalFileName' | 'table', testId: string) => (
    <TextInput
      label={t(`catalogue.layouts.${field}`)}
      value={form[field]}
      maxLength={120}
      onChange={(value) => set({ [field]: value })}
      error={err(field)}
      testId={testId}
    />
  )
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
    <CatalogueFormPage
      section="layouts"
      listPath="/layout-list"
      testIdPrefix="layout"
      editing={editing}
      loaded={loaded}
      onSubmit={submit}
      saving={editing ? editingState : adding}
    >
      {text('fileName', 'layout-file-name')}
      {text('finalFileName', 'layout-final-file-name')}
      {extensionSelect('acceptedExtension')}
      {extensionSelect('returnExtension')}
      {text('table', 'layout-table-name')}
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
          <LayoutEntryRow
            key={index}
            row={row}
            error={(field) => err(`rows.${index}.${field}`)}
            onChange={(patch) => setEntry(index, patch)}
            onRemove={() => set({ rows: [...entries.filter((_r, i) => i !== index), ...exits] })}
          />
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

      <LayoutRecordPreview request={request} hasExits={exits.length > 0} exitFields={exitFields} />
      <LayoutSamplePreview request={request} />
    </CatalogueFormPage>
  )
}
