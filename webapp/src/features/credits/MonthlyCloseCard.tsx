import { useState } from 'react'
import { useTranslation } from 'react-i18next'
import Accordion from '@mui/material/Accordion'
import AccordionDetails from '@mui/material/AccordionDetails'
import AccordionSummary from '@mui/material/AccordionSummary'
import Alert from '@mui/material/Alert'
import Box from '@mui/material/Box'
import Button from '@mui/material/Button'
import Card from '@mui/material/Card'
import CardContent from '@mui/material/CardContent'
import Stack from '@mui/material/Stack'
import TextField from '@mui/material/TextField'
import Typography from '@mui/material/Typography'
import { errorText } from '../../components/errorText'
import { downloadFile } from '../../lib/download'
import { formatNumber, todayInSaoPaulo } from '../../lib/format'
import { exportUrl } from '../../store/endpoints'
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
  const token = useAppSelector((s) => s.auth.authToken)
  const [month, setMonth] = useState(() => todayInSaoPaulo().slice(0, 7))
  const [exporting, setExporting] = useState<'csv' | 'xlsx' | null>(null)
  const [exportError, setExportError] = useState<string | null>(null)
  const close = useResellerMonthlyCloseQuery({ month: month || undefined, groupId, position })
  const data = close.data?.data
  if (data && data.children.length === 0) return null

  // The close the screen shows, as a file: the same month and group (the server's figures, the same query).
  async function exportFile(format: 'csv' | 'xlsx') {
    if (!data) return
    setExportError(null)
    setExporting(format)
    const lang = i18n.language === 'en-US' ? 'en-US' : 'pt-BR'
    try {
      await downloadFile(exportUrl('exportMonthlyClose', { month: data.month, groupId, format, lang }), token, `export.${format}`)
    } catch {
      setExportError(t('credits.exportFailed'))
    } finally {
      setExporting(null)
    }
  }
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
          <Stack direction="row" sx={{ gap: 1, flexWrap: 'wrap', alignItems: 'center' }}>
            <TextField
              type="month"
              size="small"
              label={t('credits.monthlyClose.month')}
              value={month}
              onChange={(e) => setMonth(e.target.value)}
              slotProps={{ inputLabel: { shrink: true }, htmlInput: { 'data-testid': 'monthly-close-month' } }}
            />
            <Button variant="outlined" disabled={!data || exporting !== null} onClick={() => void exportFile('csv')} data-testid="monthly-close-csv">
              {t('credits.exportCsv')}
            </Button>
            <Button variant="outlined" disabled={!data || exporting !== null} onClick={() => void exportFile('xlsx')} data-testid="monthly-close-xlsx">
              {t('credits.exportXlsx')}
            </Button>
          </Stack>
        </Stack>
        {exportError && (
          <Alert severity="error" role="alert">
            {exportError}
          </Alert>
        )}
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
