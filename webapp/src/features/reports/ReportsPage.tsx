import { lazy, Suspense, useMemo, useState } from 'react'
import { useTranslation } from 'react-i18next'
import { skipToken } from '@reduxjs/toolkit/query'
import Alert from '@mui/material/Alert'
import Button from '@mui/material/Button'
import FormControlLabel from '@mui/material/FormControlLabel'
import Skeleton from '@mui/material/Skeleton'
import Switch from '@mui/material/Switch'
import TextField from '@mui/material/TextField'
import Typography from '@mui/material/Typography'
import type { GridColDef } from '@mui/x-data-grid'
import Breadcrumbs from '../../components/Breadcrumbs'
import ChartCard from '../../components/ChartCard'
import DateFilter from '../../components/DateFilter'
import ListPage from '../../components/ListPage'
import { errorText } from '../../components/errorText'
import { downloadFile } from '../../lib/download'
import { formatNumber, showDate } from '../../lib/format'
import { exportUrl } from '../../store/endpoints'
import { useReportQuery, type ReportApiArg, type ReportRow } from '../../store/generated/bemteviApi'
import { useAppSelector } from '../../store/hooks'
import { chartSeries, DIMENSIONS, INTERVALS, PRESETS, TRANSLATED, type Dimension, type Interval, type Preset } from './reportData'

// The charts library loads after the filters and the table.
const ReportChart = lazy(() => import('./ReportChart'))

/** Who may add the groups below theirs: those who see the group's customers (the API decides the same). */
const SEES_CUSTOMERS = new Set(['admin', 'owner', 'super-admin'])

interface Row extends ReportRow {
  id: string
  notFound: number
}

export default function ReportsPage() {
  const { t, i18n } = useTranslation()
  const lang = i18n.language
  const num = (n: number) => formatNumber(n, lang)
  const position = useAppSelector((s) => s.session.lastPosition)
  const token = useAppSelector((s) => s.auth.authToken)
  const role = useAppSelector((s) => s.auth.authUser?.role ?? '')
  const seesBelow = SEES_CUSTOMERS.has(role)
  const [period, setPeriod] = useState<Preset>('last30Days')
  const [custom, setCustom] = useState<{ from?: string; to?: string }>({})
  const [interval, setInterval] = useState<Interval>('day')
  const [groupBy, setGroupBy] = useState<Dimension>('category')
  const [includeChildren, setIncludeChildren] = useState(false)
  const [exportError, setExportError] = useState<string | null>(null)

  const incomplete = period === 'custom' && !(custom.from && custom.to)
  const arg: ReportApiArg = {
    period,
    interval,
    groupBy,
    includeChildren: seesBelow && includeChildren,
    ...(period === 'custom' ? custom : {}),
  }
  const report = useReportQuery(incomplete ? skipToken : { ...arg, position })
  const data = report.data?.data

  const name = (key: string, label?: string) => {
    if (!key) return '-'
    return TRANSLATED.has(groupBy) ? t(`reports.values.${key}`, { defaultValue: key }) : label || key
  }
  const labels = new Map((data?.keys ?? []).map((k) => [k.key, k.label]))
  const rows = useMemo<Row[]>(
    () =>
      (data?.series ?? []).map((r) => ({
        ...r,
        id: `${r.period}|${r.key}`,
        notFound: r.consultations - r.found,
      })),
    [data],
  )
  const chart = useMemo(
    () =>
      chartSeries(
        data?.series ?? [],
        (data?.keys ?? []).map((k) => k.key),
      ),
    [data],
  )

  const columns: GridColDef<Row>[] = [
    {
      field: 'period',
      headerName: t('reports.columns.period'),
      minWidth: 120,
      valueFormatter: (v: string) => showDate(v, lang),
    },
    {
      field: 'key',
      headerName: t(`reports.groupBy.${groupBy}`),
      flex: 1,
      minWidth: 140,
      valueGetter: (_v, row) => name(row.key, row.label),
    },
    {
      field: 'consultations',
      headerName: t('reports.columns.consultations'),
      type: 'number',
      minWidth: 110,
      valueFormatter: (v: number) => num(v),
    },
    {
      field: 'found',
      headerName: t('reports.columns.found'),
      type: 'number',
      minWidth: 130,
      valueFormatter: (v: number) => num(v),
    },
    {
      field: 'notFound',
      headerName: t('reports.columns.notFound'),
      type: 'number',
      minWidth: 150,
      valueFormatter: (v: number) => num(v),
    },
    {
      field: 'credits',
      headerName: t('reports.columns.credits'),
      type: 'number',
      minWidth: 100,
      valueFormatter: (v: number) => num(v),
    },
  ]

  async function exportAs(format: 'csv' | 'xlsx') {
    setExportError(null)
    const language = lang === 'en-US' ? 'en-US' : 'pt-BR'
    try {
      await downloadFile(exportUrl('exportReport', { ...arg, format, lang: language }), token, `export.${format}`)
    } catch {
      setExportError(t('reports.exportFailed'))
    }
  }

  const select = <T extends string>(
    label: string,
    value: T,
    values: readonly T[],
    text: (v: T) => string,
    onChange: (v: T) => void,
    testId: string,
  ) => (
    <TextField
      select
      label={label}
      value={value}
      onChange={(e) => onChange(e.target.value as T)}
      fullWidth
      slotProps={{
        select: { native: true },
        inputLabel: { shrink: true },
        htmlInput: { 'data-testid': testId },
      }}
    >
      {values.map((v) => (
        <option key={v} value={v}>
          {text(v)}
        </option>
      ))}
    </TextField>
  )
  const failure = report.isError ? errorText(report.error, t, (k) => i18n.exists(k)) : null

  return (
    <>
      <Breadcrumbs items={[{ label: t('frame.crumbs.reports') }]} />
      <ListPage<Row>
        title={t('reports.title')}
        intro={t('reports.intro')}
        actions={
          <Button variant="outlined" onClick={() => void exportAs('xlsx')} disabled={incomplete} data-testid="export-xlsx">
            {t('reports.exportXlsx')}
          </Button>
        }
        filters={
          <>
            {select(t('reports.period.label'), period, PRESETS, (p) => t(`reports.period.${p}`), setPeriod, 'report-period')}
            {period === 'custom' && (
              <>
                <DateFilter
                  label={t('reports.period.from')}
                  value={custom.from}
                  onChange={(from) => setCustom((c) => ({ ...c, from }))}
                  testId="report-from"
                />
                <DateFilter
                  label={t('reports.period.to')}
                  value={custom.to}
                  onChange={(to) => setCustom((c) => ({ ...c, to }))}
                  testId="report-to"
                />
              </>
            )}
            {select(t('reports.interval.label'), interval, INTERVALS, (v) => t(`reports.interval.${v}`), setInterval, 'report-interval')}
            {select(t('reports.groupBy.label'), groupBy, DIMENSIONS, (v) => t(`reports.groupBy.${v}`), setGroupBy, 'report-group-by')}
            {seesBelow && (
              <FormControlLabel
                control={
                  <Switch checked={includeChildren} onChange={(e) => setIncludeChildren(e.target.checked)} data-testid="report-children" />
                }
                label={t('reports.includeChildren')}
                title={t('reports.includeChildrenHint')}
              />
            )}
          </>
        }
        heading={t('reports.rows', { count: rows.length })}
        columns={columns}
        rows={incomplete ? [] : rows}
        loading={report.isFetching && !data}
        error={failure}
        onRetry={() => void report.refetch()}
        emptyText={incomplete ? t('reports.period.pick') : t('reports.empty')}
        csv={{ download: () => exportAs('csv'), busy: incomplete }}
        narrowHidden={['found', 'notFound', 'credits']}
        testId="report-table"
        rowTestId="report-row"
      >
        {exportError && (
          <Alert severity="error" role="alert">
            {exportError}
          </Alert>
        )}
        <ChartCard
          title={t('reports.chart')}
          subtitle={
            data
              ? t('reports.period.range', {
                  from: showDate(data.firstDay, lang),
                  to: showDate(data.lastDay, lang),
                })
              : undefined
          }
          height={300}
          loading={!incomplete && report.isFetching && !data}
          refreshing={!incomplete && report.isFetching && !!data}
          error={failure}
          onRetry={() => void report.refetch()}
          empty={incomplete || chart.periods.length === 0}
          emptyText={incomplete ? t('reports.period.pick') : t('reports.empty')}
          testId="report-card"
        >
          {() => (
            <Suspense fallback={<Skeleton variant="rounded" height={300} />}>
              <ReportChart data={chart} name={(key) => name(key, labels.get(key))} />
            </Suspense>
          )}
        </ChartCard>
        {data && (
          <Typography variant="body2" data-testid="report-totals">
            {(['consultations', 'found', 'notFound', 'credits'] as const)
              .map((part) => t(`reports.totals.${part}`, { count: data.totals[part], n: num(data.totals[part]) }))
              .join(' · ')}
          </Typography>
        )}
      </ListPage>
    </>
  )
}
