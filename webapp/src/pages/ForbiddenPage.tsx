import { useTranslation } from 'react-i18next'
import StatusPage from './StatusPage'

export default function ForbiddenPage() {
  const { t } = useTranslation()
  return <StatusPage title={t('forbidden.title')} text={t('forbidden.text')} to="/dashboard" action={t('forbidden.back')} testId="forbidden" />
}
