import { useTranslation } from 'react-i18next'
import Box from '@mui/material/Box'
import DateFilter from '../../components/DateFilter'
import type { Period } from './chartData'

/** The custom period's two dates (the Date Pickers load only when someone picks "Custom"). */
export default function PeriodDates({ value, onChange }: { value: Partial<Period>; onChange: (value: Partial<Period>) => void }) {
  const { t } = useTranslation()
  return (
    <Box sx={{ display: 'grid', gap: 1.5, gridTemplateColumns: { xs: '1fr', sm: '1fr 1fr' }, flex: 1, maxWidth: { md: 420 } }}>
      <DateFilter label={t('dashboard.period.from')} value={value.from} onChange={(from) => onChange({ ...value, from })} testId="period-from" />
      <DateFilter label={t('dashboard.period.to')} value={value.to} onChange={(to) => onChange({ ...value, to })} testId="period-to" />
    </Box>
  )
}
