import { useState } from 'react'
import { useTranslation } from 'react-i18next'
import Accordion from '@mui/material/Accordion'
import AccordionDetails from '@mui/material/AccordionDetails'
import AccordionSummary from '@mui/material/AccordionSummary'
import Alert from '@mui/material/Alert'
import Box from '@mui/material/Box'
import Card from '@mui/material/Card'
import CardContent from '@mui/material/CardContent'
import Stack from '@mui/material/Stack'
import TextField from '@mui/material/TextField'
import Typography from '@mui/material/Typography'
import { errorText } from '../../components/errorText'
import { formatNumber, todayInSaoPaulo } from '../../lib/format'
import { useAppSelector } from '../../store/hooks'
import { useResellerMonthlyCloseQuery, type MonthlyCloseData } from '../../store/generated/bemteviApi'
import { StatementTable } from './StatementCard'

/** A reseller's monthly close: the totals over its customers, then each customer's statement (folded). */
export function MonthlyCloseView({ data }: { data: MonthlyCloseData }) {
  const { t, i18n } = useTranslation()
  return (
    <Stack spacing={2}>
      <Box sx={{ overflowX: 'auto' }} data-testid="monthly-close-totals">
        <Typography variant="subtitle2" component="h3">
          {t('credits.monthlyClose.totals', { count: data.children.length })}
        </Typography>
        <StatementTable categories={data.totals} />
      </Box>
      <div>
        {data.children.map((child) => {
          const unit = child.categories.find((c) => c.category === 'unit')
          return (
            <Accordion key={child.groupId} disableGutters variant="outlined" data-testid="monthly-close-child">
              <AccordionSummary>
                <Typography sx={{ flex: 1, minWidth: 0, overflowWrap: 'anywhere' }}>{child.groupName ?? child.groupId}</Typography>
                {unit && (
                  <Typography variant="body2" color="text.secondary">
                    {t('credits.monthlyClose.unitConsumed', { credits: formatNumber(unit.consumed, i18n.language) })}
                  </Typography>
                )}
              </AccordionSummary>
              <AccordionDetails sx={{ overflowX: 'auto' }}>
                <StatementTable categories={child.categories} />
              </AccordionDetails>
            </Accordion>
          )
        })}
      </div>
    </Stack>
  )
}

/** The close of a São Paulo month (this one by default) of the group filtered, or the user's own; nothing for a
 * group without customers. */
export default function MonthlyCloseCard({ groupId }: { groupId?: string | null }) {
  const { t, i18n } = useTranslation()
  const position = useAppSelector((s) => s.session.lastPosition)
  const [month, setMonth] = useState(() => todayInSaoPaulo().slice(0, 7))
  const close = useResellerMonthlyCloseQuery({ month: month || undefined, groupId, position })
  const data = close.data?.data
  if (data && data.children.length === 0) return null
  return (
    <Card variant="outlined" data-testid="monthly-close-card">
      <CardContent>
        <Stack direction="row" sx={{ mb: 1, gap: 2, flexWrap: 'wrap', justifyContent: 'space-between', alignItems: 'center' }}>
          <div>
            <Typography variant="h6" component="h2">
              {t('credits.monthlyClose.title')}
            </Typography>
            {data && (
              <Typography variant="body2" color="text.secondary">
                {t('credits.monthlyClose.subtitle', { name: data.groupName ?? data.groupId })}
              </Typography>
            )}
          </div>
          <TextField
            type="month"
            size="small"
            label={t('credits.monthlyClose.month')}
            value={month}
            onChange={(e) => setMonth(e.target.value)}
            slotProps={{ inputLabel: { shrink: true }, htmlInput: { 'data-testid': 'monthly-close-month' } }}
          />
        </Stack>
        {close.isError && (
          <Alert severity="error" role="alert">
            {errorText(close.error, t, (k) => i18n.exists(k))}
          </Alert>
        )}
        {data && <MonthlyCloseView data={data} />}
      </CardContent>
    </Card>
  )
}
