import { useLocation } from 'react-router'
import { useTranslation } from 'react-i18next'
import Paper from '@mui/material/Paper'
import Breadcrumbs from '../components/Breadcrumbs'
import { routeNameOf } from '../lib/permissions'
import { routeByName } from '../routes/routeTable'
import StatusPage from './StatusPage'

/** Honest page for a route whose screen is not built yet: guards, menu and breadcrumbs still work. */
export default function NotAvailablePage() {
  const { t } = useTranslation()
  const { pathname } = useLocation()
  const entry = routeByName(routeNameOf(pathname))
  return (
    <div data-testid="not-available">
      {entry?.breadcrumb && <Breadcrumbs items={entry.breadcrumb.map((key) => ({ label: t(key) }))} />}
      <Paper variant="outlined">
        <StatusPage
          title={t('frame.notAvailable.title')}
          text={t('frame.notAvailable.text')}
          to="/dashboard"
          action={t('frame.notAvailable.back')}
          testId="not-available-status"
        />
      </Paper>
    </div>
  )
}
