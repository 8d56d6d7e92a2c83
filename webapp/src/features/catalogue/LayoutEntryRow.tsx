import { useTranslation } from 'react-i18next'
import Button from '@mui/material/Button'
import Paper from '@mui/material/Paper'
import { SelectInput, TextInput } from '../../components/form/fields'
import { FIELD_TYPES, type RowForm } from './validation'

/**
 * One entry row of a layout: its name, type, order, size and format on one line from 900 px (three columns on
 * a tablet, one on a phone), with its remove button.
 */
export default function LayoutEntryRow({
  row,
  error,
  onChange,
  onRemove,
}: {
  row: RowForm
  /** The error of one of the row's fields, in the reader's language. */
  error: (field: 'name' | 'order' | 'size') => string | undefined
  onChange: (patch: Partial<RowForm>) => void
  onRemove: () => void
}) {
  const { t } = useTranslation()
  const whole = (field: 'order' | 'size') => (
    <TextInput
      label={t(`catalogue.layouts.row.${field}`)}
      type="number"
      min={1}
      value={row[field]}
      onChange={(value) => onChange({ [field]: value })}
      error={error(field)}
      testId={`layout-row-${field}`}
    />
  )
  return (
    <Paper
      variant="outlined"
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
        onChange={(name) => onChange({ name })}
        error={error('name')}
        testId="layout-row-name"
      />
      <SelectInput
        label={t('catalogue.layouts.row.type')}
        value={row.type}
        onChange={(type: RowForm['type']) => onChange({ type })}
        options={FIELD_TYPES.map((type) => ({
          value: type,
          label: t(`catalogue.layouts.types.${type}`),
        }))}
        testId="layout-row-type"
      />
      {whole('order')}
      {whole('size')}
      <TextInput label={t('catalogue.layouts.row.format')} value={row.format ?? ''} maxLength={120} onChange={(format) => onChange({ format })} />
      <Button color="error" onClick={onRemove} data-testid="layout-row-remove" sx={{ justifySelf: 'start', alignSelf: 'center' }}>
        {t('catalogue.layouts.row.remove')}
      </Button>
    </Paper>
  )
}
