import { useMemo, useState } from 'react'
import { useTranslation } from 'react-i18next'
import Box from '@mui/material/Box'
import Checkbox from '@mui/material/Checkbox'
import FormControlLabel from '@mui/material/FormControlLabel'
import FormHelperText from '@mui/material/FormHelperText'
import TextField from '@mui/material/TextField'
import Typography from '@mui/material/Typography'
import useMediaQuery from '@mui/material/useMediaQuery'
import { useTheme } from '@mui/material/styles'
import type { GridColDef } from '@mui/x-data-grid'
import DateFilter from '../../components/DateFilter'
import ListPage from '../../components/ListPage'
import { errorText } from '../../components/errorText'
import { useNotify } from '../../components/feedback'
import { useServerSorting } from '../../components/useServerSorting'
import { showDateTime } from '../../lib/format'
import { useAppSelector } from '../../store/hooks'
import { downloadFile } from '../../lib/download'
import { exportUrl } from '../../store/endpoints'
import { showAuditValue } from './show'
import {
  useAuditLogQuery,
  type AuditChange,
  type AuditRow,
  type ExportAuditApiArg,
} from '../../store/generated/bemteviApi'

const PER_PAGE = 50
/** The columns the API sorts by (its allow-list). */
const SORTABLE = ['createdAt', 'tenantName', 'actorName', 'event', 'targetName']
/** The kinds of event the filter offers, by aggregate (the API filters by 'Type' or 'Type.Event'). */
const EVENT_KINDS: Record<string, string[]> = {
  User: ['Registered', 'DetailsChanged', 'RoleChanged', 'StatusChanged', 'PasswordChanged', 'PhotoChanged', 'PreferencesChanged'],
  Group: ['Registered', 'Edited', 'BrandChanged', 'PermissionsChanged', 'LayoutsChanged', 'PurposeRequirementChanged', 'Activated', 'Inactivated'],
  Session: ['Opened', 'Closed'],
  CreditAccount: ['Granted', 'GrantReceived', 'LimitChanged'],
  Consultation: ['Recorded'],
  PasswordRecovery: ['Requested', 'CodeVerified', 'CodeFailed', 'Completed'],
  Mail: ['Queued', 'Sent', 'Failed'],
  BrandImage: ['Uploaded'],
  ContactRequest: ['Received'],
  QueryTypeDefinition: ['Created', 'Edited', 'DefaultChanged', 'Activated', 'Inactivated'],
  Layout: ['Created', 'Edited', 'Activated', 'Inactivated'],
  Vendor: ['Registered', 'Edited', 'StatusChanged'],
}

/** The filters the list and the export share. */
type AuditFilters = Omit<ExportAuditApiArg, 'lang' | 'groupId' | 'order'>

/** A value as a person reads it (see show.ts), in the current language. */
function useShowValue() {
  const { t, i18n } = useTranslation()
  return (field: string, value: string | null | undefined): string =>
    showAuditValue(field, value, { t: (key) => t(key), exists: (key) => i18n.exists(key) })
}

/** Who did what, to what, when, and what changed (before → after); filters and CSV export. */
export default function AuditLogPage() {
  const { t, i18n } = useTranslation()
  const lang = i18n.language
  const notify = useNotify()
  const showValue = useShowValue()
  // On a phone the event's cell also says when, who and to what (those columns are hidden).
  const narrow = useMediaQuery(useTheme().breakpoints.down('sm'))
  const token = useAppSelector((s) => s.auth.authToken)
  const position = useAppSelector((s) => s.session.lastPosition)
  const [filters, setFilters] = useState<AuditFilters>({})
  const [page, setPage] = useState(1)
  const [target, setTarget] = useState('')
  const [exporting, setExporting] = useState(false)
  const { order, sorting } = useServerSorting(SORTABLE, () => setPage(1))
  const badPeriod = !!filters.from && !!filters.to && filters.from > filters.to
  const { data, error, isError, isFetching, refetch } = useAuditLogQuery(
    { ...filters, target: target.trim() || undefined, order, page, perPage: PER_PAGE, position },
    { refetchOnMountOrArgChange: true, skip: badPeriod },
  )
  const set = (patch: AuditFilters) => {
    setFilters((f) => ({ ...f, ...patch }))
    setPage(1)
  }
  const known = (key: string) => i18n.exists(key)
  const typeName = (type: string) => (known(`audit.types.${type}`) ? t(`audit.types.${type}`) : type)
  const eventName = (type: string, event: string) =>
    known(`audit.events.${type}.${event}`) ? t(`audit.events.${type}.${event}`) : `${typeName(type)} · ${event}`
  const fieldName = (field: string) => (known(`audit.fields.${field}`) ? t(`audit.fields.${field}`) : field)
  const change = (c: AuditChange) =>
    c.kind === 'image'
      ? `${fieldName(c.field)}: ${t('audit.imageChanged')}`
      : c.before === null
        ? `${fieldName(c.field)}: ${showValue(c.field, c.after)}`
        : `${fieldName(c.field)}: ${showValue(c.field, c.before)} → ${showValue(c.field, c.after)}`
  const targetText = (row: AuditRow) => {
    if (!row.targetType) return '—'
    const name = row.targetType === 'document' && row.targetName ? showValue(row.targetName.length === 14 ? 'cnpj' : 'cpf', row.targetName) : row.targetName
    return name ?? row.targetId ?? '—'
  }

  async function exportCsv() {
    setExporting(true)
    try {
      await downloadFile(exportUrl('exportAudit', { ...filters, target: target.trim() || undefined, order, lang }), token, 'audit.csv')
    } catch {
      notify({ type: 'negative', message: t('audit.exportFailed') })
    } finally {
      setExporting(false)
    }
  }

  const columns = useMemo<GridColDef<AuditRow>[]>(
    () => [
      { field: 'createdAt', headerName: t('audit.when'), minWidth: 140, valueFormatter: (v: string) => showDateTime(v, lang) },
      {
        field: 'actorName',
        headerName: t('audit.user'),
        flex: 1,
        minWidth: 140,
        valueGetter: (_v, row) => row.actorName ?? row.actorEmail ?? t('audit.system'),
      },
      {
        field: 'event',
        headerName: t('audit.event'),
        flex: 1,
        minWidth: 170,
        valueGetter: (_v, row) => eventName(row.aggregateType, row.eventType),
        renderCell: ({ row, value }) =>
          narrow ? (
            <Box sx={{ minWidth: 0 }}>
              <Typography variant="body2" sx={{ fontWeight: 600 }}>
                {value}
              </Typography>
              <Typography variant="caption" component="div" color="text.secondary" sx={{ overflowWrap: 'anywhere' }}>
                {showDateTime(row.createdAt, lang)} · {row.actorName ?? row.actorEmail ?? t('audit.system')}
                {row.targetType ? ` → ${targetText(row)}` : ''}
              </Typography>
            </Box>
          ) : (
            value
          ),
      },
      {
        field: 'targetName',
        headerName: t('audit.target'),
        flex: 1,
        minWidth: 150,
        valueGetter: (_v, row) => targetText(row),
        renderCell: ({ row, value }) => (
          <Box sx={{ minWidth: 0 }}>
            <Typography variant="body2" sx={{ overflowWrap: 'anywhere' }}>
              {value}
            </Typography>
            {row.targetType && (
              <Typography variant="caption" color="text.secondary">
                {t(`audit.targetTypes.${row.targetType}`)}
              </Typography>
            )}
          </Box>
        ),
      },
      {
        field: 'changes',
        headerName: t('audit.changes'),
        flex: 2,
        minWidth: 220,
        valueGetter: (_v, row) => row.changes.map(change).join('; '),
        renderCell: ({ row }) =>
          row.changes.length === 0 ? (
            t('audit.noChanges')
          ) : (
            <Box component="ul" className="audit-changes" sx={{ m: 0, pl: 2, minWidth: 0, overflowWrap: 'anywhere' }}>
              {row.changes.map((c) => (
                <li key={c.field}>{change(c)}</li>
              ))}
            </Box>
          ),
      },
      { field: 'tenantName', headerName: t('audit.company'), flex: 1, minWidth: 140, valueFormatter: (v: string | null) => v ?? '—' },
    ],
    // eslint-disable-next-line react-hooks/exhaustive-deps -- the helpers follow t and lang
    [t, i18n, lang, narrow],
  )

  const actors = data?.actors ?? []
  return (
    <ListPage<AuditRow>
      title={t('audit.title')}
      filters={
        <>
          <DateFilter label={t('audit.from')} value={filters.from} onChange={(from) => set({ from })} testId="audit-from" />
          <DateFilter label={t('audit.to')} value={filters.to} onChange={(to) => set({ to })} testId="audit-to" />
          <TextField
            select
            size="small"
            label={t('audit.user')}
            value={filters.userId ?? ''}
            onChange={(e) => set({ userId: e.target.value || undefined })}
            fullWidth
            slotProps={{ select: { native: true }, inputLabel: { shrink: true }, htmlInput: { 'data-testid': 'audit-user' } }}
          >
            <option value="">{t('audit.all')}</option>
            {actors.map((a) => (
              <option key={a.id} value={a.id}>
                {a.name}
              </option>
            ))}
          </TextField>
          <TextField
            select
            size="small"
            label={t('audit.type')}
            value={filters.type ?? ''}
            onChange={(e) => set({ type: e.target.value || undefined })}
            fullWidth
            slotProps={{ select: { native: true }, inputLabel: { shrink: true }, htmlInput: { 'data-testid': 'audit-type' } }}
          >
            <option value="">{t('audit.all')}</option>
            {Object.entries(EVENT_KINDS).map(([type, events]) => (
              <optgroup key={type} label={typeName(type)}>
                <option value={type}>{t('audit.allOf', { type: typeName(type) })}</option>
                {events.map((event) => (
                  <option key={event} value={`${type}.${event}`}>
                    {eventName(type, event)}
                  </option>
                ))}
              </optgroup>
            ))}
          </TextField>
          <TextField
            size="small"
            label={t('audit.targetSearch')}
            value={target}
            onChange={(e) => {
              setTarget(e.target.value)
              setPage(1)
            }}
            fullWidth
            slotProps={{ htmlInput: { 'data-testid': 'audit-target', maxLength: 120 } }}
          />
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
      sorting={sorting}
      csv={{ download: exportCsv, busy: exporting || badPeriod }}
      narrowHidden={['tenantName', 'createdAt', 'actorName', 'targetName']}
      testId="audit-table"
      rowTestId="audit-row"
    />
  )
}
