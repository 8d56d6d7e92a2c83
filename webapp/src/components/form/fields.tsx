import type { ChangeEvent, ReactNode } from 'react'
import Button from '@mui/material/Button'
import Checkbox from '@mui/material/Checkbox'
import FormControl from '@mui/material/FormControl'
import FormControlLabel from '@mui/material/FormControlLabel'
import FormGroup from '@mui/material/FormGroup'
import FormHelperText from '@mui/material/FormHelperText'
import FormLabel from '@mui/material/FormLabel'
import Stack from '@mui/material/Stack'
import TextField from '@mui/material/TextField'
import Typography from '@mui/material/Typography'

import { WIDE } from './formHooks'

type Common = {
  label: string
  /** The field's error, already in the reader's language; shown under it in place of the hint. */
  error?: string
  hint?: ReactNode
  testId?: string
  wide?: boolean
  disabled?: boolean
}

/** A text box of the signed-in app's forms (MUI TextField); the test id sits on the input itself. */
export function TextInput({
  label,
  value,
  onChange,
  error,
  hint,
  testId,
  wide,
  disabled,
  type = 'text',
  placeholder,
  rows,
  maxLength,
  min,
  max,
  readOnly,
  autoComplete,
}: Common & {
  value: string
  onChange?: (value: string) => void
  type?: string
  placeholder?: string
  /** A multi-line box of this many rows. */
  rows?: number
  maxLength?: number
  min?: number
  max?: number
  readOnly?: boolean
  autoComplete?: string
}) {
  return (
    <TextField
      label={label}
      value={value}
      onChange={(e: ChangeEvent<HTMLInputElement>) => onChange?.(e.target.value)}
      error={!!error}
      helperText={error ?? hint}
      type={type}
      placeholder={placeholder}
      multiline={!!rows}
      minRows={rows}
      disabled={disabled}
      fullWidth
      sx={wide ? WIDE : undefined}
      slotProps={{
        inputLabel: placeholder ? { shrink: true } : undefined,
        htmlInput: { 'data-testid': testId, maxLength, min, max, readOnly, autoComplete, 'aria-invalid': !!error },
      }}
    />
  )
}

/**
 * A choice of a few values: MUI's outlined field around the browser's own select, so it looks like the
 * other fields and keeps the phone's native picker (and keyboard use) for free.
 */
export function SelectInput<V extends string>({
  label,
  value,
  onChange,
  options,
  error,
  hint,
  testId,
  wide,
  disabled,
}: Common & { value: V; onChange: (value: V) => void; options: readonly { value: V; label: string }[] }) {
  return (
    <TextField
      select
      label={label}
      value={value}
      onChange={(e) => onChange(e.target.value as V)}
      error={!!error}
      helperText={error ?? hint}
      disabled={disabled}
      fullWidth
      sx={wide ? WIDE : undefined}
      slotProps={{ select: { native: true }, inputLabel: { shrink: true }, htmlInput: { 'data-testid': testId } }}
    >
      {options.map((o) => (
        <option key={o.value} value={o.value}>
          {o.label}
        </option>
      ))}
    </TextField>
  )
}

/** A yes/no choice with its label beside it. */
export function CheckInput({
  label,
  checked,
  onChange,
  testId,
  disabled,
  wide,
  title,
}: Omit<Common, 'error' | 'hint' | 'label'> & { label: ReactNode; checked: boolean; onChange: (checked: boolean) => void; title?: string }) {
  return (
    <FormControlLabel
      // A long name (a layout's file name) breaks inside the label instead of widening a phone's page.
      sx={{ ...(wide ? WIDE : {}), minWidth: 0, '& .MuiFormControlLabel-label': { minWidth: 0, overflowWrap: 'anywhere' } }}
      title={title}
      disabled={disabled}
      control={
        <Checkbox
          size="small"
          checked={checked}
          onChange={(e) => onChange(e.target.checked)}
          slotProps={{ input: { 'data-testid': testId } as object }}
        />
      }
      label={label}
    />
  )
}

/** A group of check boxes under a legend, with the group's error or hint under it; always full width. */
export function CheckGroup({ legend, error, hint, children, row = true }: { legend: string; error?: string; hint?: ReactNode; children: ReactNode; row?: boolean }) {
  return (
    <FormControl component="fieldset" error={!!error} sx={WIDE}>
      <FormLabel component="legend">{legend}</FormLabel>
      <FormGroup row={row}>{children}</FormGroup>
      {(error ?? hint) && <FormHelperText>{error ?? hint}</FormHelperText>}
    </FormControl>
  )
}

/** A heading inside a form, over the fields of one part of it. */
export function FormSection({ children }: { children: ReactNode }) {
  return (
    <Typography variant="subtitle1" component="h2" sx={{ ...WIDE, fontWeight: 600, mt: 1 }}>
      {children}
    </Typography>
  )
}

/**
 * A file chooser that looks like the app's other buttons: the browser's own input stays in the page
 * (hidden, still labelled and reachable by tests) and the chosen file's name is shown beside the button.
 */
export function FilePicker({
  label,
  accept,
  fileName,
  noFile,
  onChange,
  testId,
  error,
  hint,
  disabled,
  errorTestId,
}: {
  label: string
  accept?: string
  fileName?: string
  /** Shown while no file is chosen. */
  noFile: string
  onChange: (file: File | null) => void
  testId?: string
  error?: string
  hint?: ReactNode
  disabled?: boolean
  /** The test id of the error under the button (there only while there is one). */
  errorTestId?: string
}) {
  return (
    <FormControl error={!!error} sx={WIDE}>
      <Stack direction="row" spacing={1.5} sx={{ alignItems: 'center', minWidth: 0 }}>
        <Button component="label" variant="outlined" disabled={disabled} sx={{ flexShrink: 0 }}>
          {label}
          <input
            hidden
            type="file"
            accept={accept}
            data-testid={testId}
            onChange={(e) => {
              onChange(e.target.files?.[0] ?? null)
              e.target.value = ''
            }}
          />
        </Button>
        <Typography
          variant="body2"
          color={fileName ? 'text.primary' : 'text.secondary'}
          noWrap
          title={fileName}
          sx={{ minWidth: 0 }}
          data-testid={testId ? `${testId}-name` : undefined}
        >
          {fileName || noFile}
        </Typography>
      </Stack>
      {(error ?? hint) && <FormHelperText data-testid={error ? errorTestId : undefined}>{error ?? hint}</FormHelperText>}
    </FormControl>
  )
}
