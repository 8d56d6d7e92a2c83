import { useState } from 'react'
import { useTranslation } from 'react-i18next'
import Alert from '@mui/material/Alert'
import Button from '@mui/material/Button'
import Card from '@mui/material/Card'
import CardContent from '@mui/material/CardContent'
import Stack from '@mui/material/Stack'
import Table from '@mui/material/Table'
import TableBody from '@mui/material/TableBody'
import TableCell from '@mui/material/TableCell'
import TableHead from '@mui/material/TableHead'
import TableRow from '@mui/material/TableRow'
import Typography from '@mui/material/Typography'
import { errorText } from '../../components/errorText'
import { formatNumber } from '../../lib/format'
import { downloadFile } from '../../lib/download'
import { exportUrl } from '../../store/endpoints'
import { useAppSelector } from '../../store/hooks'
import { useFinanceStatementQuery, type StatementCategory } from '../../store/generated/bemteviApi'

/** The statement's lines, top to bottom: the opening balance, what moved it, the closing balance. */
const FIGURES = [
  'openingBalance',
  'received',
  'returned',
  'granted',
  'takenBack',
  'charged',
  'released',
  'limitChanges',
  'closingBalance',
  'consumed',
] as const satisfies readonly (keyof StatementCategory)[]

interface Props {
  from?: string | null
  to?: string | null
  groupId?: string | null
}

/** The finance statement of one group (the one filtered, or the user's own) for the history's period. */
export default function StatementCard({ from, to, groupId }: Props) {
  const { t, i18n } = useTranslation()
  const lang = i18n.language
  const position = useAppSelector((s) => s.session.lastPosition)
  const token = useAppSelector((s) => s.auth.authToken)
  const [exportError, setExportError] = useState<string | null>(null)
  const statement = useFinanceStatementQuery({ from, to, groupId, position })
  const data = statement.data?.data

  async function exportCsv() {
    setExportError(null)
    const language = lang === 'en-US' ? 'en-US' : 'pt-BR'
    try {
      await downloadFile(exportUrl('exportStatement', { from, to, groupId, lang: language }), token, 'export.csv')
    } catch {
      setExportError(t('credits.exportFailed'))
    }
  }

  return (
    <Card variant="outlined" data-testid="statement-card">
      <CardContent>
        <Stack direction="row" spacing={2} sx={{ mb: 1, justifyContent: 'space-between', alignItems: 'center' }}>
          <div>
            <Typography variant="h6" component="h2">
              {t('credits.statement.title')}
            </Typography>
            {data && (
              <Typography variant="body2" color="text.secondary">
                {t('credits.statement.subtitle', { name: data.groupName ?? data.groupId })}
              </Typography>
            )}
          </div>
          <Button variant="outlined" onClick={() => void exportCsv()} data-testid="statement-export">
            {t('credits.exportCsv')}
          </Button>
        </Stack>
        {exportError && (
          <Alert severity="error" role="alert">
            {exportError}
          </Alert>
        )}
        {statement.isError && (
          <Alert severity="error" role="alert">
            {errorText(statement.error, t, (k) => i18n.exists(k))}
          </Alert>
        )}
        {data && <StatementTable categories={data.categories} />}
      </CardContent>
    </Card>
  )
}

/** One column per category, one row per figure; a balance while unlimited says so. On a phone each figure stacks
 * its categories as lines (four columns do not fit beside the figures' names). */
export function StatementTable({ categories }: { categories: StatementCategory[] }) {
  const { t, i18n } = useTranslation()
  const cell = (value: number | null) => (value === null ? t('credits.unlimited') : formatNumber(value, i18n.language))
  return (
    <Table size="small" className="stack-on-phone" data-testid="statement-table">
      <TableHead>
        <TableRow>
          <TableCell />
          {categories.map((c) => (
            <TableCell key={c.category} align="right">
              {t(`credits.categories.${c.category}`)}
            </TableCell>
          ))}
        </TableRow>
      </TableHead>
      <TableBody>
        {FIGURES.map((figure) => (
          <TableRow key={figure} data-testid={`statement-${figure}`}>
            <TableCell component="th" scope="row">
              {t(`credits.statement.${figure}`)}
            </TableCell>
            {categories.map((c) => (
              <TableCell key={c.category} align="right" data-label={t(`credits.categories.${c.category}`)}>
                {cell(c[figure])}
              </TableCell>
            ))}
          </TableRow>
        ))}
      </TableBody>
    </Table>
  )
}
