import { useState, type FormEvent } from 'react'
import { useTranslation } from 'react-i18next'
import { Link } from 'react-router'
import Breadcrumbs from '../components/Breadcrumbs'
import ResultView from '../components/ResultView'
import Spinner from '../components/Spinner'
import { errorText } from '../components/errorText'
import { checkDocument } from '../lib/documents'
import { errorInfo } from '../lib/errors'
import { useAppSelector } from '../store/hooks'
import { useEnabledQueryTypesQuery, useRunConsultationMutation } from '../store/generated/bemteviApi'
import { typedConsultation } from '../types/api'

export default function NormalQueryPage() {
  const { t, i18n } = useTranslation()
  const [document, setDocument] = useState('')
  const [clientError, setClientError] = useState<string | null>(null)
  const [consult, { data, error, isLoading, reset }] = useRunConsultationMutation()
  // The query types the user's group may run, from the catalogue; none chosen: the document's default.
  const position = useAppSelector((s) => s.session.lastPosition)
  const types = useEnabledQueryTypesQuery({ position }).data?.data ?? []
  const [queryType, setQueryType] = useState('')

  const submit = async (event: FormEvent) => {
    event.preventDefault()
    reset()
    if (!document.trim()) {
      setClientError(t('query.documentRequired'))
      return
    }
    const check = checkDocument(document)
    if (!check.ok) {
      setClientError(t(`errors.${check.reason}`))
      return
    }
    setClientError(null)
    try {
      await consult({ consultationRequest: { document: check.digits, ...(queryType ? { query_type: queryType } : {}) } }).unwrap()
    } catch {
      // shown below from the mutation state
    }
  }

  const info = errorInfo(error)
  const noCredits = info.status === 402 || info.code === 'not_enough_credits'

  return (
    <div className="page normal-query">
      <Breadcrumbs items={[{ label: t('query.breadcrumbQueries') }, { label: t('query.breadcrumbUnit') }]} />
      <h1>{t('query.title')}</h1>
      <form className="card query-form" onSubmit={(e) => void submit(e)} noValidate>
        <label className="form-field">
          <span>{t('query.documentLabel')}</span>
          <input
            type="text"
            inputMode="numeric"
            name="document"
            autoComplete="off"
            placeholder={t('query.documentPlaceholder')}
            value={document}
            maxLength={24}
            onChange={(e) => {
              setDocument(e.target.value)
              setClientError(null)
            }}
            aria-invalid={!!clientError}
            aria-describedby={clientError ? 'query-document-error' : undefined}
            data-testid="query-document"
          />
          {clientError && (
            <small id="query-document-error" className="field-error" data-testid="query-document-error">
              {clientError}
            </small>
          )}
        </label>
        {types.length > 0 && (
          <label className="form-field">
            <span>{t('query.typeLabel')}</span>
            <select value={queryType} onChange={(e) => setQueryType(e.target.value)} data-testid="query-type">
              <option value="">{t('query.defaultType')}</option>
              {types.map((type) => (
                <option key={type.key} value={type.key}>
                  {type.badge} · {type.name}
                </option>
              ))}
            </select>
          </label>
        )}
        <button type="submit" className="btn btn-primary" disabled={isLoading} data-testid="query-submit">
          {isLoading ? t('query.submitting') : t('query.submit')}
        </button>
      </form>

      {isLoading && <Spinner />}
      {error && (
        <div className="alert alert-error" role="alert" data-testid="query-error">
          {noCredits && <strong>{t('query.notEnoughCredits')}</strong>}
          <span>{errorText(error, t, (k) => i18n.exists(k))}</span>
        </div>
      )}
      {data && !isLoading && data.data.status === 'done' && (
        <p className="muted small">
          <Link
            to={`/query-result/${data.data.document}/${data.data.documentType}/${data.data.queryType}/-/${data.data.id}/${data.data.documentType === 'cpf' ? 'person' : 'company'}`}
            data-testid="query-permalink"
          >
            {t('query.openResult')}
          </Link>
        </p>
      )}
      {data && !isLoading && <ResultView consultation={typedConsultation(data.data)} />}
    </div>
  )
}
