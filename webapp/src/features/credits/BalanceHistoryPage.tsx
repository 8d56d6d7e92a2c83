import { useState } from 'react'
import { useTranslation } from 'react-i18next'
import { Link } from 'react-router'
import Spinner from '../../components/Spinner'
import { errorText } from '../../components/errorText'
import { formatDateTimeBR, formatNumber } from '../../lib/format'
import { useAppSelector } from '../../store/hooks'
import ConsumptionChart from './ConsumptionChart'
import { exportUrl } from '../../store/endpoints'
import {
  useBalancesQuery,
  useConsumptionQuery,
  useHistoryQuery,
  type ConsumptionApiArg,
  type Movement,
} from '../../store/generated/bemteviApi'
import { CATEGORIES, type CategoryName } from './categories'
import { downloadFile } from './download'
import Pagination from '../../components/Pagination'

const PER_PAGE = 25

/** The period, category and group the movements, the chart and the exports share. */
type HistoryFilters = ConsumptionApiArg

function reasonText(m: Movement, t: (key: string) => string): string {
  if (!m.reason) return m.counterpartyName ?? '-'
  return t(`credits.reasons.${m.reason}`)
}

export default function BalanceHistoryPage() {
  const { t, i18n } = useTranslation()
  const position = useAppSelector((s) => s.session.lastPosition)
  const token = useAppSelector((s) => s.auth.authToken)
  const [filters, setFilters] = useState<HistoryFilters>({})
  const [page, setPage] = useState(1)
  const [exportError, setExportError] = useState<string | null>(null)
  const balances = useBalancesQuery({ position })
  const history = useHistoryQuery({ ...filters, page, perPage: PER_PAGE, position })
  const consumption = useConsumptionQuery(filters)
  const num = (n: number) => formatNumber(n, i18n.language)

  function change(patch: Partial<HistoryFilters>) {
    setFilters((f) => ({ ...f, ...patch }))
    setPage(1)
  }

  async function exportAs(format: 'csv' | 'xlsx') {
    setExportError(null)
    const lang = i18n.language === 'en-US' ? 'en-US' : 'pt-BR'
    try {
      await downloadFile(exportUrl('exportHistory', { ...filters, format, lang }), token, `export.${format}`)
    } catch {
      setExportError(t('credits.exportFailed'))
    }
  }

  const groups = balances.data ? [balances.data.data.group, ...balances.data.data.children] : []
  const pages = history.data ? Math.max(1, Math.ceil(history.data.total / PER_PAGE)) : 1
  return (
    <div className="page balance-history">
      <div className="page-header">
        <h1>{t('credits.historyTitle')}</h1>
        <Link to="/balances" className="btn">
          {t('credits.balancesLink')}
        </Link>
      </div>
      <form className="filters card" onSubmit={(e) => e.preventDefault()} aria-label={t('credits.filters')}>
        <label>
          {t('credits.from')}
          <input type="date" value={filters.from ?? ''} onChange={(e) => change({ from: e.target.value || undefined })} />
        </label>
        <label>
          {t('credits.to')}
          <input type="date" value={filters.to ?? ''} onChange={(e) => change({ to: e.target.value || undefined })} />
        </label>
        <label>
          {t('credits.category')}
          <select
            value={filters.category ?? ''}
            onChange={(e) => change({ category: (e.target.value || undefined) as CategoryName | undefined })}
            data-testid="history-category"
          >
            <option value="">{t('credits.allCategories')}</option>
            {CATEGORIES.map((c) => (
              <option key={c} value={c}>
                {t(`credits.categories.${c}`)}
              </option>
            ))}
          </select>
        </label>
        {groups.length > 1 && (
          <label>
            {t('credits.group')}
            <select
              value={filters.groupId ?? ''}
              onChange={(e) => change({ groupId: e.target.value || undefined })}
              data-testid="history-group"
            >
              <option value="">{t('credits.allGroups')}</option>
              {groups.map((g) => (
                <option key={g.id} value={g.id}>
                  {g.name}
                </option>
              ))}
            </select>
          </label>
        )}
        <div className="actions">
          <button type="button" className="btn" onClick={() => exportAs('csv')} data-testid="export-csv">
            {t('credits.exportCsv')}
          </button>
          <button type="button" className="btn" onClick={() => exportAs('xlsx')} data-testid="export-xlsx">
            {t('credits.exportXlsx')}
          </button>
        </div>
      </form>
      {exportError && (
        <div className="alert alert-error" role="alert">
          {exportError}
        </div>
      )}

      <section className="card">
        <h2>{t('credits.chart.title')}</h2>
        {consumption.data ? <ConsumptionChart days={consumption.data.data} /> : <Spinner />}
      </section>

      <section className="card">
        <h2>{t('credits.movements', { count: history.data?.total ?? 0 })}</h2>
        {history.isLoading ? (
          <Spinner />
        ) : history.isError || !history.data ? (
          <div className="alert alert-error" role="alert">
            {errorText(history.error, t, (k) => i18n.exists(k))}
          </div>
        ) : history.data.data.length === 0 ? (
          <p className="muted">{t('credits.noMovements')}</p>
        ) : (
          <div className="table-scroll">
            <table className="data-table" data-testid="history-table">
              <thead>
                <tr>
                  <th scope="col">{t('credits.when')}</th>
                  <th scope="col">{t('credits.group')}</th>
                  <th scope="col">{t('credits.category')}</th>
                  <th scope="col">{t('credits.movement')}</th>
                  <th scope="col" className="num">
                    {t('credits.amount')}
                  </th>
                  <th scope="col" className="num">
                    {t('credits.balance')}
                  </th>
                  <th scope="col">{t('credits.actor')}</th>
                  <th scope="col">{t('credits.reason')}</th>
                </tr>
              </thead>
              <tbody>
                {history.data.data.map((m) => (
                  <tr key={m.position} data-testid="history-row">
                    <td>{formatDateTimeBR(m.createdAt)}</td>
                    <td>{m.groupName ?? '-'}</td>
                    <td>{t(`credits.categories.${m.category}`)}</td>
                    <td>{t(`credits.kinds.${m.kind}`)}</td>
                    <td className="num">{num(m.amount)}</td>
                    <td className="num" data-testid="history-balance">
                      {m.balance === null ? t('credits.unlimited') : num(m.balance)}
                    </td>
                    <td>{m.actorName ?? '-'}</td>
                    <td title={m.reasonId ?? undefined}>{reasonText(m, t)}</td>
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
