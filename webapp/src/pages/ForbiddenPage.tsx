import { Link } from 'react-router'
import { useTranslation } from 'react-i18next'

export default function ForbiddenPage() {
  const { t } = useTranslation()
  return (
    <div className="page status-page" data-testid="forbidden">
      <h1>{t('forbidden.title')}</h1>
      <p>{t('forbidden.text')}</p>
      <Link to="/dashboard" className="btn btn-primary">
        {t('forbidden.back')}
      </Link>
    </div>
  )
}
