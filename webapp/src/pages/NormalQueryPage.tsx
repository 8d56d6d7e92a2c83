import { useState, type FormEvent } from 'react'
import { useTranslation } from 'react-i18next'
import { Link } from 'react-router'
import Alert from '@mui/material/Alert'
import Button from '@mui/material/Button'
import Paper from '@mui/material/Paper'
import TextField from '@mui/material/TextField'
import Breadcrumbs from '../components/Breadcrumbs'
import PurposeField from '../components/PurposeField'
import { foldPurpose, purposeProblem, usePurposeSetting } from '../lib/purpose'
import ResultView from '../components/ResultView'
import Spinner from '../components/Spinner'
import { errorText } from '../components/errorText'
import { checkDocument } from '../lib/documents'
import { useQueryTypeName } from '../lib/queryTypeName'
import { maskDocument } from '../lib/masks'
import { errorInfo } from '../lib/errors'
import { useAppSelector } from '../store/hooks'
import { useEnabledQueryTypesQuery, useRunConsultationMutation } from '../store/generated/bemteviApi'
import { typedConsultation } from '../types/api'

export default function NormalQueryPage() {
  const { t, i18n } = useTranslation()
  const typeName = useQueryTypeName()
  const [document, setDocument] = useState('')
  const [clientError, setClientError] = useState<string | null>(null)
  const [consult, { data, error, isLoading, reset }] = useRunConsultationMutation()
  // The query types the user's group may run, from the catalogue; none chosen: the document's default.
  const position = useAppSelector((s) => s.session.lastPosition)
  const enabled = useEnabledQueryTypesQuery({ position }).data
  const types = enabled?.data ?? []
  // A group set not to use a default query (its customer form) chooses each lookup's type: the first is chosen
  // until the user picks another; otherwise the document's default is, named once the document is typed.
  const usesDefault = enabled?.usesDefault ?? true
  const [picked, setPicked] = useState('')
  const queryType = picked || (usesDefault ? '' : (types[0]?.key ?? ''))
  const typed = checkDocument(document)
  const defaultType = typed.ok ? types.find((type) => type.default && type.toggles[typed.type]) : undefined
  // What the lookup is for: recorded with it, shown to the data subject; required when the group says so.
  const purposeSetting = usePurposeSetting()
  const [purpose, setPurpose] = useState('')
  const [purposeError, setPurposeError] = useState<'required' | 'tooLong' | null>(null)

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
    const problem = purposeProblem(purpose, purposeSetting.required, purposeSetting.maxLength)
    setPurposeError(problem)
    if (problem) return
    const said = foldPurpose(purpose)
    try {
      await consult({
        consultationRequest: { document: check.digits, ...(queryType ? { query_type: queryType } : {}), ...(said ? { purpose: said } : {}) },
      }).unwrap()
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
      {/* One column on phones (the document field the whole width), one row from 600 px. */}
      <Paper
        component="form"
        variant="outlined"
        onSubmit={(e: FormEvent) => void submit(e)}
        noValidate
        sx={{ p: 2, mb: 2, display: 'flex', flexDirection: { xs: 'column', sm: 'row' }, flexWrap: 'wrap', alignItems: { xs: 'stretch', sm: 'flex-start' }, gap: 2 }}
      >
        <TextField
          label={t('query.documentLabel')}
          name="document"
          placeholder={t('query.documentPlaceholder')}
          value={document}
          onChange={(e) => {
            setDocument(maskDocument(e.target.value))
            setClientError(null)
          }}
          error={!!clientError}
          helperText={clientError ?? undefined}
          sx={{ flex: { sm: '1 1 16rem' }, minWidth: 0 }}
          slotProps={{
            inputLabel: { shrink: true },
            htmlInput: { inputMode: 'numeric', autoComplete: 'off', maxLength: 24, 'data-testid': 'query-document', 'aria-invalid': !!clientError },
            formHelperText: { 'data-testid': 'query-document-error' } as object,
          }}
        />
        {types.length > 0 && (
          <TextField
            select
            label={t('query.typeLabel')}
            value={queryType}
            onChange={(e) => setPicked(e.target.value)}
            sx={{ flex: { sm: '1 1 16rem' }, minWidth: 0 }}
            slotProps={{ select: { native: true }, inputLabel: { shrink: true }, htmlInput: { 'data-testid': 'query-type' } }}
          >
            {usesDefault && (
              <option value="">
                {defaultType ? `${t('query.defaultType')}: ${defaultType.badge} · ${typeName(defaultType.key, defaultType.name)}` : t('query.defaultType')}
              </option>
            )}
            {types.map((type) => (
              <option key={type.key} value={type.key}>
                {type.badge} · {typeName(type.key, type.name)}
              </option>
            ))}
          </TextField>
        )}
        <PurposeField
          value={purpose}
          onChange={(value) => {
            setPurpose(value)
            setPurposeError(null)
          }}
          required={purposeSetting.required}
          maxLength={purposeSetting.maxLength}
          problem={purposeError}
          testId="query-purpose"
        />
        <Button type="submit" variant="contained" disabled={isLoading} data-testid="query-submit" sx={{ flexShrink: 0, height: 40, alignSelf: { xs: 'flex-start', sm: 'flex-start' } }}>
          {isLoading ? t('query.submitting') : t('query.submit')}
        </Button>
      </Paper>

      {isLoading && <Spinner />}
      {error && (
        <Alert severity="error" role="alert" data-testid="query-error" sx={{ mb: 2 }}>
          {noCredits && <strong>{t('query.notEnoughCredits')} </strong>}
          <span>{errorText(error, t, (k) => i18n.exists(k))}</span>
        </Alert>
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
