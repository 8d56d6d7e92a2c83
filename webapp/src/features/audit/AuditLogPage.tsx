import { useMemo, useState } from 'react'
import { useTranslation } from 'react-i18next'
import Box from '@mui/material/Box'
import Button from '@mui/material/Button'
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
import { auditSentence, changeText, targetText, type Words } from './show'
import { AUDIT_EVENT_KINDS } from '../../store/generated/auditEventKinds'
import {
  useAuditLogQuery,
  type AuditRow,
  type ExportAuditApiArg,
} from '../../store/generated/bemteviApi'

const PER_PAGE = 50
/** The columns the API sorts by (its allow-list). */
const SORTABLE = ['createdAt', 'tenantName', 'actorName', 'event', 'targetName']
/** The kinds of event the filter offers, by aggregate (the API filters by 'Type' or 'Type.Event'): every kind
 * the log can show, as the API lists them (generated from its schema). */
const EVENT_KINDS: Record<string, string[]> = {}
for (const kind of AUDIT_EVENT_KINDS) {
  const [type, event] = kind.split('.')
  ;(EVENT_KINDS[type] ??= []).push(event)
}

/** The filters the list and the export share. */
type AuditFilters = Omit<ExportAuditApiArg, 'lang' | 'groupId' | 'order'>

/** i18next as show.ts needs it, in the current language. */
function useWords(): Words {
  const { t, i18n } = useTranslation()
  return { t: (key, values) => t(key, values ?? {}), exists: (key) => i18n.exists(key), lang: i18n.language }
}

/** Who did what, to what, when, and what changed (before → after); filters and CSV export. */
export default function AuditLogPage() {
  const { t, i18n } = useTranslation()
  const lang = i18n.language
  const notify = useNotify()
  const words = useWords()
  // On a phone the event's cell also says when (that column is hidden; the sentence says who and to what).
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
  /** The server's file: each row as the sentence on screen, in the screen's language. */
  async function exportAs(format: 'csv' | 'xlsx') {
    setExporting(true)
    try {
      const args = { ...filters, target: target.trim() || undefined, order, lang, format }
      await downloadFile(exportUrl('exportAudit', args), token, `audit.${format}`)
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
        // What happened as one sentence (who, to what, with what); the kind of event under it.
        field: 'event',
        headerName: t('audit.event'),
        flex: 2,
        minWidth: 220,
        valueGetter: (_v, row) => auditSentence(row, words),
        renderCell: ({ row, value }) => (
          <Box sx={{ minWidth: 0 }}>
            <Typography variant="body2" sx={{ fontWeight: narrow ? 600 : 400, overflowWrap: 'anywhere' }} data-testid="audit-sentence">
              {value}
            </Typography>
            <Typography variant="caption" component="div" color="text.secondary" sx={{ overflowWrap: 'anywhere' }}>
              {narrow ? `${showDateTime(row.createdAt, lang)} · ` : ''}
              {eventName(row.aggregateType, row.eventType)}
            </Typography>
          </Box>
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
        valueGetter: (_v, row) => row.changes.map((c) => changeText(row.aggregateType, c, words)).join('; '),
        renderCell: ({ row }) =>
          row.changes.length === 0 ? (
            t('audit.noChanges')
          ) : (
            <Box component="ul" className="audit-changes" sx={{ m: 0, pl: 2, minWidth: 0, overflowWrap: 'anywhere' }}>
              {row.changes.map((c) => (
                <li key={c.field}>{changeText(row.aggregateType, c, words)}</li>
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
      actions={
        <Button variant="outlined" onClick={() => void exportAs('xlsx')} disabled={exporting || badPeriod} data-testid="export-xlsx">
          {t('audit.exportXlsx')}
        </Button>
      }
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
            {Object.entries(EVENT_KINDS)
              .sort(([a], [b]) => typeName(a).localeCompare(typeName(b), lang))
              .map(([type, events]) => (
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
      csv={{ download: () => exportAs('csv'), busy: exporting || badPeriod }}
      narrowHidden={['tenantName', 'createdAt', 'actorName', 'targetName']}
      testId="audit-table"
      rowTestId="audit-row"
    />
  )
}
