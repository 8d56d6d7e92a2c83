import { Link, useLocation } from 'react-router'
import { useTranslation } from 'react-i18next'
import Breadcrumbs from '../components/Breadcrumbs'
import { routeNameOf } from '../lib/permissions'
import { routeByName } from '../routes/routeTable'

/** Honest page for a route whose screen is not built yet: guards, menu and breadcrumbs still work. */
export default function NotAvailablePage() {
  const { t } = useTranslation()
  const { pathname } = useLocation()
  const entry = routeByName(routeNameOf(pathname))
  return (
    <div className="page" data-testid="not-available">
      {entry?.breadcrumb && <Breadcrumbs items={entry.breadcrumb.map((key) => ({ label: t(key) }))} />}
      <div className="card status-page">
        <h1>{t('frame.notAvailable.title')}</h1>
        <p>{t('frame.notAvailable.text')}</p>
        <Link to="/dashboard" className="btn btn-primary">
          {t('frame.notAvailable.back')}
        </Link>
      </div>
    </div>
  )
}
