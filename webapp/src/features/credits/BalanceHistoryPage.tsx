import { useMemo, useState } from 'react'
import { useTranslation } from 'react-i18next'
import { Link } from 'react-router'
import Alert from '@mui/material/Alert'
import Button from '@mui/material/Button'
import TextField from '@mui/material/TextField'
import type { GridColDef } from '@mui/x-data-grid'
import DateFilter from '../../components/DateFilter'
import ListPage from '../../components/ListPage'
import { useServerSorting } from '../../components/useServerSorting'
import { errorText } from '../../components/errorText'
import { formatNumber, showDateTime, todayInSaoPaulo } from '../../lib/format'
import { useAppSelector } from '../../store/hooks'
import ChartCard from '../../components/ChartCard'
import ConsumptionChart from './ConsumptionChart'
import StatementCard from './StatementCard'
import MonthlyCloseCard from './MonthlyCloseCard'
import { consumptionPeriod, consumptionSeries } from './consumption'
import { exportUrl } from '../../store/endpoints'
import {
  useBalancesQuery,
  useConsumptionQuery,
  useHistoryQuery,
  type ConsumptionApiArg,
  type Movement,
} from '../../store/generated/bemteviApi'
import { CATEGORIES, type CategoryName } from './categories'
import { downloadFile } from '../../lib/download'

const PER_PAGE = 25

/** The period, category and group the movements, the chart and the exports share. */
type HistoryFilters = ConsumptionApiArg

function reasonText(m: Movement, t: (key: string) => string): string {
  if (!m.reason) return m.counterpartyName ?? '-'
  return t(`credits.reasons.${m.reason}`)
}

export default function BalanceHistoryPage() {
  const { t, i18n } = useTranslation()
  const lang = i18n.language
  const position = useAppSelector((s) => s.session.lastPosition)
  const token = useAppSelector((s) => s.auth.authToken)
  const [filters, setFilters] = useState<HistoryFilters>({})
  const [page, setPage] = useState(1)
  const { order, sorting } = useServerSorting(
    ['createdAt', 'groupName', 'category', 'kind', 'amount', 'balance', 'actorName', 'reason'],
    () => setPage(1),
  )
  const [exportError, setExportError] = useState<string | null>(null)
  const balances = useBalancesQuery({ position })
  const history = useHistoryQuery({ ...filters, page, perPage: PER_PAGE, order, position })
  const consumption = useConsumptionQuery(filters)
  const chart = useMemo(
    () => consumptionSeries(consumption.data?.data ?? [], consumptionPeriod(filters, todayInSaoPaulo())),
    [consumption.data, filters],
  )

  function change(patch: Partial<HistoryFilters>) {
    setFilters((f) => ({ ...f, ...patch }))
    setPage(1)
  }

  async function exportAs(format: 'csv' | 'xlsx') {
    setExportError(null)
    const language = lang === 'en-US' ? 'en-US' : 'pt-BR'
    try {
      await downloadFile(exportUrl('exportHistory', { ...filters, format, lang: language }), token, `export.${format}`)
    } catch {
      setExportError(t('credits.exportFailed'))
    }
  }

  const columns = useMemo<GridColDef<Movement>[]>(() => {
    const num = (n: number) => formatNumber(n, lang)
    return [
      { field: 'createdAt', headerName: t('credits.when'), minWidth: 150, valueFormatter: (v: string) => showDateTime(v, lang) },
      { field: 'groupName', headerName: t('credits.group'), flex: 1, minWidth: 140, valueFormatter: (v: string | null) => v ?? '-' },
      { field: 'category', headerName: t('credits.category'), minWidth: 110, valueFormatter: (v: string) => t(`credits.categories.${v}`) },
      { field: 'kind', headerName: t('credits.movement'), minWidth: 130, valueFormatter: (v: string) => t(`credits.kinds.${v}`) },
      {
        field: 'amount',
        headerName: t('credits.amount'),
        type: 'number',
        minWidth: 90,
        // A settlement charges part of its reservation and gives the rest back: both on its line.
        renderCell: ({ row }) =>
          row.released > 0 ? `${num(row.amount)} (${t('credits.released', { count: row.released, amount: num(row.released) })})` : num(row.amount),
      },
      {
        field: 'change',
        headerName: t('credits.change'),
        type: 'number',
        minWidth: 90,
        sortable: false,
        renderCell: ({ row }) => (
          <span data-testid="history-change">
            {row.change === null ? '-' : row.change > 0 ? `+${num(row.change)}` : num(row.change)}
          </span>
        ),
      },
      {
        field: 'balance',
        headerName: t('credits.balance'),
        type: 'number',
        minWidth: 100,
        renderCell: ({ row }) => (
          <span data-testid="history-balance">{row.balance === null ? t('credits.unlimited') : num(row.balance)}</span>
        ),
      },
      { field: 'actorName', headerName: t('credits.actor'), flex: 1, minWidth: 130, valueFormatter: (v: string | null) => v ?? '-' },
      {
        field: 'reason',
        headerName: t('credits.reason'),
        flex: 1,
        minWidth: 140,
        valueGetter: (_v, row) => reasonText(row, t),
      },
    ]
  }, [t, lang])

  const groups = balances.data ? [balances.data.data.group, ...balances.data.data.children] : []
  return (
    <ListPage<Movement>
      title={t('credits.historyTitle')}
      actions={
        <>
          <Button variant="outlined" component={Link} to="/balances">
            {t('credits.balancesLink')}
          </Button>
          <Button variant="outlined" onClick={() => void exportAs('xlsx')} data-testid="export-xlsx">
            {t('credits.exportXlsx')}
          </Button>
        </>
      }
      filters={
        <>
          <DateFilter label={t('credits.from')} value={filters.from} onChange={(from) => change({ from })} testId="history-from" />
          <DateFilter label={t('credits.to')} value={filters.to} onChange={(to) => change({ to })} testId="history-to" />
          <TextField
            select
            label={t('credits.category')}
            value={filters.category ?? ''}
            onChange={(e) => change({ category: (e.target.value || undefined) as CategoryName | undefined })}
            fullWidth
            slotProps={{ select: { native: true }, inputLabel: { shrink: true }, htmlInput: { 'data-testid': 'history-category' } }}
          >
            <option value="">{t('credits.allCategories')}</option>
            {CATEGORIES.map((c) => (
              <option key={c} value={c}>
                {t(`credits.categories.${c}`)}
              </option>
            ))}
          </TextField>
          {groups.length > 1 && (
            <TextField
              select
              label={t('credits.group')}
              value={filters.groupId ?? ''}
              onChange={(e) => change({ groupId: e.target.value || undefined })}
              fullWidth
              slotProps={{ select: { native: true }, inputLabel: { shrink: true }, htmlInput: { 'data-testid': 'history-group' } }}
            >
              <option value="">{t('credits.allGroups')}</option>
              {groups.map((g) => (
                <option key={g.id} value={g.id}>
                  {g.name}
                </option>
              ))}
            </TextField>
          )}
        </>
      }
      heading={t('credits.movements', { count: history.data?.total ?? 0 })}
      columns={columns}
      rows={history.data?.data}
      getRowId={(m) => m.position}
      loading={history.isFetching && !history.data}
      error={history.isError ? errorText(history.error, t, (k) => i18n.exists(k)) : null}
      onRetry={() => void history.refetch()}
      emptyText={t('credits.noMovements')}
      paging={{ total: history.data?.total ?? 0, page, pageSize: PER_PAGE, onPage: setPage }}
      sorting={sorting}
      csv={{ download: () => exportAs('csv') }}
      narrowHidden={['groupName', 'category', 'actorName', 'reason']}
      testId="history-table"
      rowTestId="history-row"
    >
      {exportError && (
        <Alert severity="error" role="alert">
          {exportError}
        </Alert>
      )}
      <ChartCard
        title={t('credits.chart.title')}
        subtitle={chart.total > 0 ? t('credits.chart.total', { credits: formatNumber(chart.total, lang) }) : undefined}
        height={280}
        loading={consumption.isFetching && !consumption.data}
        refreshing={consumption.isFetching && !!consumption.data}
        error={consumption.isError ? errorText(consumption.error, t, (k) => i18n.exists(k)) : null}
        onRetry={() => void consumption.refetch()}
        empty={chart.days.length === 0}
        emptyText={t('credits.chart.empty')}
        testId="consumption-card"
      >
        {() => <ConsumptionChart data={chart} />}
      </ChartCard>
      <StatementCard from={filters.from} to={filters.to} groupId={filters.groupId} />
      <MonthlyCloseCard groupId={filters.groupId} />
    </ListPage>
  )
}
