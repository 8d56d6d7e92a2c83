import { useTranslation } from 'react-i18next'
import { Link, useLocation, useParams } from 'react-router'
import Alert from '@mui/material/Alert'
import Breadcrumbs from '../../components/Breadcrumbs'
import ResultView from '../../components/ResultView'
import { useAppSelector } from '../../store/hooks'

/** advanced-query-result/...: a result opened from the list, on the unit lookup's result screen, with its charge. */
export default function AdvancedResultPage() {
  const { t } = useTranslation()
  const { queryId } = useParams()
  const { state } = useLocation() as { state: { list?: string } | null }
  const last = useAppSelector((s) => s.session.lastConsultation)
  const consultation = last && (!queryId || last.id === queryId) ? last : null
  const list = state?.list ?? '/advanced-query'
  return (
    <div className="page query-result-page">
      <Breadcrumbs
        items={[
          { label: t('advanced.breadcrumbForm'), to: '/advanced-query' },
          { label: t('advanced.results'), to: list },
          { label: t('query.breadcrumbResult') },
        ]}
      />
      {consultation ? (
        <>
          <Alert severity={consultation.credits ? 'success' : 'info'} data-testid="advanced-charge" sx={{ mb: 2 }}>
            {consultation.credits ? t('advanced.charged', { count: consultation.credits }) : t('advanced.notCharged')}{' '}
            <Link to={list}>{t('advanced.backToList')}</Link>
          </Alert>
          <ResultView consultation={consultation} />
        </>
      ) : (
        <div className="card" data-testid="query-result-missing">
          <p>{t('advanced.noResult')}</p>
          <Link to="/advanced-query" className="btn btn-primary">
            {t('advanced.newSearch')}
          </Link>
        </div>
      )}
    </div>
  )
}
