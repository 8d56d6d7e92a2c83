import { useMemo, useState } from 'react'
import { useTranslation } from 'react-i18next'
import Checkbox from '@mui/material/Checkbox'
import FormControlLabel from '@mui/material/FormControlLabel'
import FormHelperText from '@mui/material/FormHelperText'
import TextField from '@mui/material/TextField'
import type { GridColDef } from '@mui/x-data-grid'
import DateFilter from '../../components/DateFilter'
import ListPage from '../../components/ListPage'
import { errorText } from '../../components/errorText'
import { useNotify } from '../../components/feedback'
import { showDateTime } from '../../lib/format'
import { useAppSelector } from '../../store/hooks'
import { downloadFile } from '../credits/download'
import { exportUrl } from '../../store/endpoints'
import { useAuditLogQuery, type AuditRow, type ExportAuditApiArg } from '../../store/generated/bemteviApi'

const PER_PAGE = 50

/** The filters the list and the export share. */
type AuditFilters = Omit<ExportAuditApiArg, 'lang' | 'groupId'>

/** Who did what, for which company, when: filters by user, type and period, CSV export. */
export default function AuditLogPage() {
  const { t, i18n } = useTranslation()
  const lang = i18n.language
  const notify = useNotify()
  const token = useAppSelector((s) => s.auth.authToken)
  const position = useAppSelector((s) => s.session.lastPosition)
  const [filters, setFilters] = useState<AuditFilters>({})
  const [page, setPage] = useState(1)
  const [exporting, setExporting] = useState(false)
  const badPeriod = !!filters.from && !!filters.to && filters.from > filters.to
  const { data, error, isError, isFetching, refetch } = useAuditLogQuery(
    { ...filters, page, perPage: PER_PAGE, position },
    { refetchOnMountOrArgChange: true, skip: badPeriod },
  )
  const set = (patch: AuditFilters) => {
    setFilters((f) => ({ ...f, ...patch }))
    setPage(1)
  }
  const typeName = (type: string) => (i18n.exists(`audit.types.${type}`) ? t(`audit.types.${type}`) : type)

  async function exportCsv() {
    setExporting(true)
    try {
      await downloadFile(exportUrl('exportAudit', { ...filters, lang }), token, 'audit.csv')
    } catch {
      notify({ type: 'negative', message: t('audit.exportFailed') })
    } finally {
      setExporting(false)
    }
  }

  const columns = useMemo<GridColDef<AuditRow>[]>(
    () => [
      { field: 'createdAt', headerName: t('audit.when'), minWidth: 150, valueFormatter: (v: string) => showDateTime(v, lang) },
      { field: 'tenantName', headerName: t('audit.company'), flex: 1, minWidth: 140, valueFormatter: (v: string | null) => v ?? '-' },
      {
        field: 'actorName',
        headerName: t('audit.user'),
        flex: 1,
        minWidth: 140,
        valueGetter: (_v, row) => row.actorName ?? row.actorEmail ?? t('audit.system'),
      },
      {
        field: 'aggregateType',
        headerName: t('audit.type'),
        minWidth: 120,
        valueGetter: (_v, row) =>
          i18n.exists(`audit.types.${row.aggregateType}`) ? t(`audit.types.${row.aggregateType}`) : row.aggregateType,
      },
      { field: 'eventType', headerName: t('audit.event'), minWidth: 140 },
      {
        field: 'summary',
        headerName: t('audit.summary'),
        flex: 2,
        minWidth: 220,
        sortable: false,
        renderCell: ({ value }) => (
          <span className="audit-summary" style={{ minWidth: 0, overflowWrap: 'anywhere' }}>
            {value || '-'}
          </span>
        ),
      },
    ],
    [t, i18n, lang],
  )

  const actors = Array.from(
    new Map((data?.data ?? []).filter((r) => r.actorId).map((r) => [r.actorId as string, r.actorName ?? r.actorEmail ?? r.actorId])),
  )

  return (
    <ListPage<AuditRow>
      title={t('audit.title')}
      filters={
        <>
          <TextField
            select
            label={t('audit.user')}
            value={filters.userId ?? ''}
            onChange={(e) => set({ userId: e.target.value || undefined })}
            fullWidth
            slotProps={{ select: { native: true }, inputLabel: { shrink: true }, htmlInput: { 'data-testid': 'audit-user' } }}
          >
            <option value="">{t('audit.all')}</option>
            {actors.map(([id, name]) => (
              <option key={id} value={id}>
                {name}
              </option>
            ))}
          </TextField>
          <TextField
            select
            label={t('audit.type')}
            value={filters.type ?? ''}
            onChange={(e) => set({ type: e.target.value || undefined })}
            fullWidth
            slotProps={{ select: { native: true }, inputLabel: { shrink: true }, htmlInput: { 'data-testid': 'audit-type' } }}
          >
            <option value="">{t('audit.all')}</option>
            {(data?.types ?? []).map((type) => (
              <option key={type} value={type}>
                {typeName(type)}
              </option>
            ))}
          </TextField>
          <DateFilter label={t('audit.from')} value={filters.from} onChange={(from) => set({ from })} testId="audit-from" />
          <DateFilter label={t('audit.to')} value={filters.to} onChange={(to) => set({ to })} testId="audit-to" />
          <FormControlLabel
            control={<Checkbox checked={!!filters.children} onChange={(e) => set({ children: e.target.checked })} />}
            label={t('audit.children')}
          />
          {badPeriod && (
            <FormHelperText error role="alert">
              {t('audit.badPeriod')}
            </FormHelperText>
          )}
        </>
      }
      columns={columns}
      rows={badPeriod ? [] : data?.data}
      getRowId={(r) => `${r.position}-${r.aggregateType}-${r.aggregateId}`}
      loading={isFetching && !data}
      error={isError ? errorText(error, t, (k) => i18n.exists(k)) : null}
      onRetry={() => void refetch()}
      emptyText={t('audit.empty')}
      paging={{ total: data?.total ?? 0, page, pageSize: PER_PAGE, onPage: setPage }}
      csv={{ download: exportCsv, busy: exporting || badPeriod }}
      narrowHidden={['tenantName', 'aggregateType', 'eventType']}
      testId="audit-table"
      rowTestId="audit-row"
    />
  )
}
