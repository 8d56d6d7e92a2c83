import { useState } from 'react'
import { useTranslation } from 'react-i18next'
import Autocomplete from '@mui/material/Autocomplete'
import Box from '@mui/material/Box'
import Button from '@mui/material/Button'
import Chip from '@mui/material/Chip'
import Paper from '@mui/material/Paper'
import TextField from '@mui/material/TextField'
import Typography from '@mui/material/Typography'
import type { ExitFieldView } from '../../store/generated/bemteviApi'
import { fold, moved, removed, sourceOf, withEntry, withField } from './exitFields'
import type { RowForm } from './validation'

type Option = { kind: 'field'; field: ExitFieldView } | { kind: 'entry'; row: RowForm }

/**
 * The exit fields of a layout, picked from the catalogue (what a batch fills) instead of typed: search
 * by label or name, add, order with the arrows, remove. A date's format is the picker's (dd/mm/aaaa)
 * and may be changed; a row naming no field of the catalogue is flagged (it would come back empty).
 */
export default function ExitFieldPicker({
  fields,
  entries,
  rows,
  fixed,
  onChange,
}: {
  fields: ExitFieldView[]
  entries: RowForm[]
  rows: RowForm[]
  fixed: boolean
  onChange: (rows: RowForm[]) => void
}) {
  const { t, i18n } = useTranslation()
  const lang = i18n.language === 'en-US' ? 'en-US' : 'pt-BR'
  const [input, setInput] = useState('')
  const entryNames = entries.map((e) => e.name)
  const picked = new Set(rows.map((r) => fold(r.name)))
  const options: Option[] = [
    ...entries.filter((e) => e.name.trim()).map((row): Option => ({ kind: 'entry', row })),
    ...fields.map((field): Option => ({ kind: 'field', field })),
  ]
  const labelOf = (o: Option) =>
    o.kind === 'entry'
      ? `${o.row.name} (${t('catalogue.layouts.picker.passThrough')})`
      : `${o.field.label[lang] ?? o.field.name} (${o.field.name})`
  const groupOf = (o: Option) =>
    o.kind === 'entry' ? t('catalogue.layouts.picker.groups.entry') : t(`catalogue.layouts.picker.groups.${o.field.appliesTo}`)
  const taken = (o: Option) => (o.kind === 'entry' ? picked.has(fold(o.row.name)) : o.field.names.some((n) => picked.has(n)))
  const setFormat = (index: number, format: string) => onChange(rows.map((r, i) => (i === index ? { ...r, format } : r)))

  return (
    <Box sx={{ display: 'grid', gap: 1.5, width: '100%', minWidth: 0 }} data-testid="exit-field-picker">
      <Autocomplete<Option, false, false, false>
        options={options}
        groupBy={groupOf}
        getOptionLabel={labelOf}
        getOptionDisabled={taken}
        isOptionEqualToValue={(a, b) => labelOf(a) === labelOf(b)}
        value={null}
        inputValue={input}
        onInputChange={(_e, value, reason) => setInput(reason === 'reset' ? '' : value)}
        onChange={(_e, option) => {
          if (!option) return
          onChange(option.kind === 'entry' ? withEntry(rows, option.row) : withField(rows, option.field, fixed))
          setInput('')
        }}
        noOptionsText={t('catalogue.layouts.picker.noMatch')}
        renderOption={(props, option) => {
          const { key, ...rest } = props as typeof props & { key: string }
          return (
            <li key={key} {...rest} data-testid="exit-field-option">
              <Box
                sx={{
                  display: 'flex',
                  gap: 1,
                  alignItems: 'baseline',
                  flexWrap: 'wrap',
                  minWidth: 0,
                }}
              >
                <span>{option.kind === 'entry' ? option.row.name : (option.field.label[lang] ?? option.field.name)}</span>
                <Typography component="span" variant="caption" className="mono" color="text.secondary">
                  {option.kind === 'entry' ? t('catalogue.layouts.picker.passThrough') : option.field.name}
                  {option.kind === 'field' && option.field.format ? ` · ${option.field.format}` : ''}
                </Typography>
              </Box>
            </li>
          )
        }}
        renderInput={(params) => (
          <TextField
            {...params}
            label={t('catalogue.layouts.picker.add')}
            placeholder={t('catalogue.layouts.picker.placeholder')}
            slotProps={{
              ...params.slotProps,
              htmlInput: {
                ...params.slotProps.htmlInput,
                'data-testid': 'exit-field-search',
              },
            }}
          />
        )}
      />
      {rows.length === 0 ? (
        <Typography variant="body2" color="text.secondary" data-testid="exit-field-empty">
          {t('catalogue.layouts.picker.empty')}
        </Typography>
      ) : (
        <Box
          component="ol"
          sx={{ listStyle: 'none', m: 0, p: 0, display: 'grid', gap: 1 }}
          aria-label={t('catalogue.layouts.picker.chosen')}
        >
          {rows.map((row, index) => {
            const source = sourceOf(fields, entryNames, row.name)
            const label =
              source.kind === 'field'
                ? (source.field.label[lang] ?? row.name)
                : source.kind === 'entry'
                  ? t('catalogue.layouts.picker.passThrough')
                  : t('catalogue.layouts.picker.unknown')
            return (
              <Paper
                component="li"
                variant="outlined"
                key={`${row.name}-${index}`}
                data-testid="exit-field-item"
                data-name={row.name}
                sx={{
                  p: 1,
                  display: 'grid',
                  gap: 1,
                  alignItems: 'center',
                  gridTemplateColumns: {
                    xs: 'auto minmax(0, 1fr)',
                    sm: fixed ? 'auto minmax(0, 1fr) auto auto auto' : 'auto minmax(0, 1fr) auto auto',
                  },
                  borderColor: source.kind === 'unknown' ? 'warning.main' : undefined,
                }}
              >
                <Typography variant="body2" color="text.secondary" sx={{ minWidth: '1.5rem', textAlign: 'right' }}>
                  {index + 1}.
                </Typography>
                <Box sx={{ minWidth: 0 }}>
                  <Typography variant="body2" sx={{ overflowWrap: 'anywhere' }}>
                    {label}
                  </Typography>
                  <Typography variant="caption" className="mono" color={source.kind === 'unknown' ? 'warning.main' : 'text.secondary'}>
                    {row.name}
                  </Typography>{' '}
                  <Chip size="small" variant="outlined" label={t(`catalogue.layouts.types.${row.type}`)} sx={{ ml: 0.5 }} />
                </Box>
                {fixed && (
                  <TextField
                    size="small"
                    type="number"
                    label={t('catalogue.layouts.row.size')}
                    value={row.size}
                    onChange={(e) => onChange(rows.map((r, i) => (i === index ? { ...r, size: e.target.value } : r)))}
                    sx={{
                      gridColumn: { xs: '2', sm: 'auto' },
                      maxWidth: '6rem',
                    }}
                    slotProps={{
                      htmlInput: {
                        'data-testid': 'exit-field-size',
                        min: 1,
                        max: 1000,
                      },
                    }}
                  />
                )}
                {row.type === 'date' ? (
                  <TextField
                    size="small"
                    label={t('catalogue.layouts.row.format')}
                    value={row.format ?? ''}
                    onChange={(e) => setFormat(index, e.target.value)}
                    sx={{
                      gridColumn: { xs: '2', sm: 'auto' },
                      maxWidth: '10rem',
                    }}
                    slotProps={{
                      htmlInput: {
                        'data-testid': 'exit-field-format',
                        maxLength: 20,
                      },
                    }}
                  />
                ) : (
                  <Box sx={{ display: { xs: 'none', sm: 'block' } }} />
                )}
                <Box
                  sx={{
                    display: 'flex',
                    gap: 0.5,
                    gridColumn: { xs: '2', sm: 'auto' },
                  }}
                >
                  {(
                    [
                      { action: 'up', symbol: '↑', color: 'primary', disabled: index === 0, next: () => moved(rows, index, -1) },
                      { action: 'down', symbol: '↓', color: 'primary', disabled: index === rows.length - 1, next: () => moved(rows, index, 1) },
                      { action: 'remove', symbol: '✕', color: 'error', disabled: false, next: () => removed(rows, index) },
                    ] as const
                  ).map(({ action, symbol, color, disabled, next }) => (
                    <Button
                      key={action}
                      size="small"
                      color={color}
                      variant="outlined"
                      sx={{ minWidth: 36 }}
                      disabled={disabled}
                      onClick={() => onChange(next())}
                      aria-label={t(`catalogue.layouts.picker.${action}`, { name: row.name })}
                      data-testid={`exit-field-${action}`}
                    >
                      {symbol}
                    </Button>
                  ))}
                </Box>
              </Paper>
            )
          })}
        </Box>
      )}
    </Box>
  )
}
