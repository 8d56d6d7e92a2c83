import { Link, useParams } from 'react-router'
import { useTranslation } from 'react-i18next'
import Breadcrumbs from '../components/Breadcrumbs'
import ResultView from '../components/ResultView'
import { onlyDigits } from '../lib/documents'
import { useAppSelector } from '../store/hooks'

/** Shows the last unit-query result kept in the store (matching the :document parameter when given). */
export default function QueryResultPage() {
  const { t } = useTranslation()
  const { document } = useParams()
  const last = useAppSelector((s) => s.session.lastConsultation)
  const matches = last && (!document || onlyDigits(document) === onlyDigits(last.document))
  return (
    <div className="page query-result-page">
      <Breadcrumbs
        items={[
          { label: t('query.breadcrumbUnit'), to: '/normal-query' },
          { label: t('query.breadcrumbResult') },
        ]}
      />
      {matches ? (
        <ResultView consultation={last} />
      ) : (
        <div className="card">
          <p>{t('query.noResult')}</p>
          <Link to="/normal-query" className="btn btn-primary">
            {t('query.newQuery')}
          </Link>
        </div>
      )}
    </div>
  )
}
