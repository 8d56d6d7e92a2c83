import { useTranslation } from 'react-i18next'
import MenuItem from '@mui/material/MenuItem'
import TextField from '@mui/material/TextField'

import type { StatusChoice } from './status'

/** The lists' status filter: all, active, inactive. */
export default function StatusFilter({
  value,
  onChange,
  testId,
}: {
  value: StatusChoice
  onChange: (value: StatusChoice) => void
  testId: string
}) {
  const { t } = useTranslation()
  return (
    <TextField
      select
      label={t('catalogue.status')}
      value={value}
      onChange={(e) => onChange(e.target.value as StatusChoice)}
      slotProps={{ htmlInput: { 'data-testid': testId } }}
    >
      <MenuItem value="all">{t('catalogue.allStatuses')}</MenuItem>
      <MenuItem value="active">{t('catalogue.active')}</MenuItem>
      <MenuItem value="inactive">{t('catalogue.inactive')}</MenuItem>
    </TextField>
  )
}
