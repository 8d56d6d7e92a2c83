import dayjs from 'dayjs'
import { DatePicker } from '@mui/x-date-pickers/DatePicker'

/**
 * A date filter: MUI's date picker in the user's locale (dd/mm/yyyy in pt-BR, mm/dd/yyyy in en-US)
 * holding the API's "YYYY-MM-DD" (undefined when empty or not a whole date yet).
 */
export default function DateFilter({
  label,
  value,
  onChange,
  testId,
}: {
  label: string
  value: string | null | undefined
  onChange: (value: string | undefined) => void
  testId?: string
}) {
  return (
    <div data-testid={testId}>
      <DatePicker
        label={label}
        value={value ? dayjs(value) : null}
        onChange={(v) => onChange(v && v.isValid() ? v.format('YYYY-MM-DD') : undefined)}
        slotProps={{ textField: { size: 'small', fullWidth: true } }}
      />
    </div>
  )
}
