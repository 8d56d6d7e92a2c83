import { Link, useParams } from 'react-router'
import { useTranslation } from 'react-i18next'
import Breadcrumbs from '../components/Breadcrumbs'
import ResultView from '../components/ResultView'
import Spinner from '../components/Spinner'
import { errorText } from '../components/errorText'
import { onlyDigits } from '../lib/documents'
import { useAppSelector } from '../store/hooks'
import { useKeptResultQuery } from '../store/generated/bemteviApi'
import { typedConsultation } from '../types/api'

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i

/**
 * A lookup's result: reopened from the server by :queryId (kept within its query type's validity
 * days), else the last unit-query result of this session (matching :document when given).
 */
export default function QueryResultPage() {
  const { t, i18n } = useTranslation()
  const { document, queryId } = useParams()
  const last = useAppSelector((s) => s.session.lastConsultation)
  const position = useAppSelector((s) => s.session.lastPosition)
  const reopen = !!queryId && UUID.test(queryId) && last?.id !== queryId
  const kept = useKeptResultQuery({ consultationId: queryId ?? '', position }, { skip: !reopen })
  const matches = last && (queryId ? last.id === queryId : !document || onlyDigits(document) === onlyDigits(last.document))
  const consultation = reopen ? (kept.data ? typedConsultation(kept.data.data) : null) : matches ? last : null
  return (
    <div className="page query-result-page">
      <Breadcrumbs
        items={[
          { label: t('query.breadcrumbUnit'), to: '/normal-query' },
          { label: t('query.breadcrumbResult') },
        ]}
      />
      {reopen && kept.isLoading ? (
        <Spinner />
      ) : consultation ? (
        <ResultView consultation={consultation} />
      ) : (
        <div className="card" data-testid="query-result-missing">
          <p>{reopen && kept.isError ? errorText(kept.error, t, (k) => i18n.exists(k)) : t('query.noResult')}</p>
          <Link to="/normal-query" className="btn btn-primary">
            {t('query.newQuery')}
          </Link>
        </div>
      )}
    </div>
  )
}
