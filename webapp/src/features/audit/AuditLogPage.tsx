import { useState } from 'react'
import { useTranslation } from 'react-i18next'
import Spinner from '../../components/Spinner'
import { errorText } from '../../components/errorText'
import { useNotify } from '../../components/feedback'
import { formatDateTimeBR } from '../../lib/format'
import { useAppSelector } from '../../store/hooks'
import { downloadFile } from '../credits/download'
import { exportUrl } from '../../store/endpoints'
import { useAuditLogQuery, type ExportAuditApiArg } from '../../store/generated/bemteviApi'
import Pagination from '../../components/Pagination'

const PER_PAGE = 50

/** The filters the list and the export share. */
type AuditFilters = Omit<ExportAuditApiArg, 'lang' | 'groupId'>

/** Who did what, for which company, when: filters by user, type and period, CSV export. */
export default function AuditLogPage() {
  const { t, i18n } = useTranslation()
  const notify = useNotify()
  const token = useAppSelector((s) => s.auth.authToken)
  const position = useAppSelector((s) => s.session.lastPosition)
  const [filters, setFilters] = useState<AuditFilters>({})
  const [page, setPage] = useState(1)
  const [exporting, setExporting] = useState(false)
  const { data, error, isLoading, isError, isFetching } = useAuditLogQuery(
    { ...filters, page, perPage: PER_PAGE, position },
    { refetchOnMountOrArgChange: true },
  )
  const pages = data ? Math.max(1, Math.ceil(data.total / PER_PAGE)) : 1
  const set = (patch: AuditFilters) => {
    setFilters((f) => ({ ...f, ...patch }))
    setPage(1)
  }
  const badPeriod = !!filters.from && !!filters.to && filters.from > filters.to

  async function exportCsv() {
    setExporting(true)
    try {
      await downloadFile(exportUrl('exportAudit', { ...filters, lang: i18n.language }), token, 'audit.csv')
    } catch {
      notify({ type: 'negative', message: t('audit.exportFailed') })
    } finally {
      setExporting(false)
    }
  }

  return (
    <div className="page audit-log">
      <div className="page-header">
        <h1>{t('audit.title')}</h1>
        <button type="button" className="btn" onClick={() => void exportCsv()} disabled={exporting || badPeriod} data-testid="audit-export">
          {t('audit.export')}
        </button>
      </div>
      <div className="filters card">
        <label>
          {t('audit.user')}
          <select value={filters.userId ?? ''} onChange={(e) => set({ userId: e.target.value || undefined })} data-testid="audit-user">
            <option value="">{t('audit.all')}</option>
            {Array.from(
              new Map((data?.data ?? []).filter((r) => r.actorId).map((r) => [r.actorId as string, r.actorName ?? r.actorEmail ?? r.actorId])),
            ).map(([id, name]) => (
              <option key={id} value={id}>
                {name}
              </option>
            ))}
          </select>
        </label>
        <label>
          {t('audit.type')}
          <select value={filters.type ?? ''} onChange={(e) => set({ type: e.target.value || undefined })} data-testid="audit-type">
            <option value="">{t('audit.all')}</option>
            {(data?.types ?? []).map((type) => (
              <option key={type} value={type}>
                {i18n.exists(`audit.types.${type}`) ? t(`audit.types.${type}`) : type}
              </option>
            ))}
          </select>
        </label>
        <label>
          {t('audit.from')}
          <input type="date" value={filters.from ?? ''} onChange={(e) => set({ from: e.target.value || undefined })} data-testid="audit-from" />
        </label>
        <label>
          {t('audit.to')}
          <input type="date" value={filters.to ?? ''} onChange={(e) => set({ to: e.target.value || undefined })} data-testid="audit-to" />
        </label>
        <label className="check">
          <input type="checkbox" checked={!!filters.children} onChange={(e) => set({ children: e.target.checked })} />
          {t('audit.children')}
        </label>
        {badPeriod && <small className="field-error">{t('audit.badPeriod')}</small>}
      </div>
      <section className="card">
        {isLoading ? (
          <Spinner />
        ) : isError || !data ? (
          <div className="alert alert-error" role="alert">
            {errorText(error, t, (k) => i18n.exists(k))}
          </div>
        ) : data.data.length === 0 ? (
          <p className="muted">{t('audit.empty')}</p>
        ) : (
          <div className="table-scroll">
            <table className="data-table" data-testid="audit-table" aria-busy={isFetching}>
              <thead>
                <tr>
                  <th scope="col">{t('audit.when')}</th>
                  <th scope="col">{t('audit.company')}</th>
                  <th scope="col">{t('audit.user')}</th>
                  <th scope="col">{t('audit.type')}</th>
                  <th scope="col">{t('audit.event')}</th>
                  <th scope="col">{t('audit.summary')}</th>
                </tr>
              </thead>
              <tbody>
                {data.data.map((r) => (
                  <tr key={`${r.position}-${r.aggregateType}`} data-testid="audit-row">
                    <td>{formatDateTimeBR(r.createdAt)}</td>
                    <td>{r.tenantName ?? '-'}</td>
                    <td>{r.actorName ?? r.actorEmail ?? t('audit.system')}</td>
                    <td>{i18n.exists(`audit.types.${r.aggregateType}`) ? t(`audit.types.${r.aggregateType}`) : r.aggregateType}</td>
                    <td>{r.eventType}</td>
                    <td className="audit-summary">{r.summary || '-'}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        )}
        <Pagination page={page} pages={pages} onPage={setPage} />
      </section>
    </div>
  )
}
