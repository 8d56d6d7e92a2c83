import { useState } from 'react'
import { useTranslation } from 'react-i18next'
import { Link } from 'react-router'
import Spinner from '../../components/Spinner'
import { errorText } from '../../components/errorText'
import { formatNumber } from '../../lib/format'
import { useAppSelector } from '../../store/hooks'
import { Available, UsedOfLimit } from './FiguresCells'
import GrantForm from './GrantForm'
import { useBalancesQuery, type CategoryFigures, type GroupBalances } from '../../store/generated/bemteviApi'

function CategoryCard({ figures }: { figures: CategoryFigures }) {
  const { t, i18n } = useTranslation()
  const num = (n: number) => formatNumber(n, i18n.language)
  const spent = figures.used + figures.reserved + figures.granted
  return (
    <div className="card stat" data-testid={`balance-${figures.category}`}>
      <span className="stat-label">{t(`credits.categories.${figures.category}`)}</span>
      <strong className="stat-value">
        <Available figures={figures} />
      </strong>
      <span className="muted small">{t('credits.available')}</span>
      {!figures.unlimited && (figures.limit ?? 0) > 0 && (
        <div className="meter" aria-hidden="true">
          <span style={{ width: `${Math.min(100, (spent / (figures.limit ?? 1)) * 100)}%` }} />
        </div>
      )}
      <dl className="figures">
        <dt>{t('credits.used')}</dt>
        <dd>
          <UsedOfLimit figures={figures} />
        </dd>
        <dt>{t('credits.reserved')}</dt>
        <dd>{num(figures.reserved)}</dd>
        <dt>{t('credits.granted')}</dt>
        <dd>{num(figures.granted)}</dd>
      </dl>
    </div>
  )
}

function ChildRow({ child, onGrant }: { child: GroupBalances; onGrant: () => void }) {
  const { t } = useTranslation()
  return (
    <tr data-testid="balance-child">
      <th scope="row">
        {child.name}
        {child.active === false && <span className="badge">{t('credits.inactive')}</span>}
      </th>
      {child.categories.map((f) => (
        <td key={f.category} className="num">
          <UsedOfLimit figures={f} />
        </td>
      ))}
      <td>
        <button type="button" className="btn" onClick={onGrant} data-testid="grant-open">
          {t('credits.grant.open')}
        </button>
      </td>
    </tr>
  )
}

export default function BalancesPage() {
  const { t, i18n } = useTranslation()
  const position = useAppSelector((s) => s.session.lastPosition)
  const balances = useBalancesQuery({ position }, { refetchOnMountOrArgChange: true })
  const { error, isLoading, isError } = balances
  const data = balances.data?.data
  const [granting, setGranting] = useState<string | null>(null)

  if (isLoading) return <Spinner />
  if (isError || !data)
    return (
      <div className="alert alert-error" role="alert">
        {errorText(error, t, (k) => i18n.exists(k))}
      </div>
    )
  const child = data.children.find((c) => c.id === granting)
  return (
    <div className="page balances">
      <div className="page-header">
        <h1>{t('credits.balancesTitle')}</h1>
        <Link to="/balance-history" className="btn" data-testid="history-link">
          {t('credits.historyLink')}
        </Link>
      </div>
      <p className="muted">{t('credits.balancesIntro', { name: data.group.name })}</p>
      <div className="stat-grid">
        {data.group.categories.map((f) => (
          <CategoryCard key={f.category} figures={f} />
        ))}
      </div>
      {data.children.length > 0 && (
        <section className="card">
          <h2>{t('credits.childrenTitle')}</h2>
          {child && <GrantForm key={child.id} child={child} onDone={() => setGranting(null)} />}
          <div className="table-scroll">
            <table className="data-table" data-testid="balances-children">
              <thead>
                <tr>
                  <th scope="col">{t('credits.group')}</th>
                  {data.group.categories.map((f) => (
                    <th scope="col" key={f.category}>
                      {t(`credits.categories.${f.category}`)}
                    </th>
                  ))}
                  <th scope="col">
                    <span className="visually-hidden">{t('credits.actions')}</span>
                  </th>
                </tr>
              </thead>
              <tbody>
                {data.children.map((c) => (
                  <ChildRow key={c.id} child={c} onGrant={() => setGranting(c.id)} />
                ))}
              </tbody>
            </table>
          </div>
        </section>
      )}
    </div>
  )
}
