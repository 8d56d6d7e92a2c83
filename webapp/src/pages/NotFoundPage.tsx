import { useTranslation } from 'react-i18next'
import MuiProvider from '../components/mui/MuiProvider'
import StatusPage from './StatusPage'

/** Any path no route has; outside the layouts, so it brings the theme itself. */
export default function NotFoundPage() {
  const { t } = useTranslation()
  return (
    <MuiProvider>
      <StatusPage code={t('notFound.code')} title={t('notFound.title')} text={t('notFound.text')} to="/" action={t('notFound.back')} testId="not-found" />
    </MuiProvider>
  )
}
