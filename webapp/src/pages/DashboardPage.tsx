import { useTranslation } from 'react-i18next'
import Spinner from '../components/Spinner'
import { errorText } from '../components/errorText'
import { formatDateBR, formatNumber } from '../lib/format'
import { useDashboardQuery } from '../store/generated/bemteviApi'
import { useAppSelector } from '../store/hooks'

export default function DashboardPage() {
  const { t, i18n } = useTranslation()
  const position = useAppSelector((s) => s.session.lastPosition)
  const dashboard = useDashboardQuery({ position }, { refetchOnMountOrArgChange: true })
  const { error, isLoading, isError } = dashboard
  const data = dashboard.data?.data
  const locale = i18n.language
  const num = (n: number) => formatNumber(n, locale)

  if (isLoading) return <Spinner />
  if (isError || !data)
    return (
      <div className="alert alert-error" role="alert">
        {errorText(error, t, (k) => i18n.exists(k))}
      </div>
    )

  const unit = data.credits.unit
  const max = Math.max(1, ...data.byDay.map((d) => d.count))
  return (
    <div className="page dashboard">
      <h1>{t('dashboard.title')}</h1>
      <div className="stat-grid">
        <div className="card stat">
          <span className="stat-label">{t('dashboard.total')}</span>
          <strong className="stat-value" data-testid="dashboard-total">
            {num(data.consultationsTotal)}
          </strong>
        </div>
        <div className="card stat">
          <span className="stat-label">{t('dashboard.today')}</span>
          <strong className="stat-value" data-testid="dashboard-today">
            {num(data.consultationsToday)}
          </strong>
        </div>
        <div className="card stat">
          <span className="stat-label">{t('dashboard.unitCredits')}</span>
          <strong className="stat-value" data-testid="dashboard-unit-credits">
            {t('dashboard.usedOfLimit', {
              used: num(unit.used),
              limit: unit.limit === null ? t('dashboard.unlimited') : num(unit.limit),
            })}
          </strong>
          {unit.limit !== null && unit.limit > 0 && (
            <div className="meter" aria-hidden="true">
              <span style={{ width: `${Math.min(100, (unit.used / unit.limit) * 100)}%` }} />
            </div>
          )}
        </div>
      </div>

      <section className="card">
        <h2>{t('dashboard.byDay')}</h2>
        {data.byDay.length === 0 ? (
          <p className="muted">{t('dashboard.noData')}</p>
        ) : (
          <table className="by-day" data-testid="dashboard-by-day">
            <thead>
              <tr>
                <th scope="col">{t('dashboard.day')}</th>
                <th scope="col">{t('dashboard.count')}</th>
                <th scope="col" aria-hidden="true" />
              </tr>
            </thead>
            <tbody>
              {data.byDay.map((d) => (
                <tr key={d.day}>
                  <td>{formatDateBR(d.day) ?? d.day}</td>
                  <td className="num">{num(d.count)}</td>
                  <td className="bar-cell" aria-hidden="true">
                    <span className="bar" style={{ width: `${(d.count / max) * 100}%` }} />
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        )}
      </section>
    </div>
  )
}
