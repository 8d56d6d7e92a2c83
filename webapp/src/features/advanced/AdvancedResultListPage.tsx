import { useEffect, useMemo, useRef, useState } from 'react'
import { useTranslation } from 'react-i18next'
import { Link, useNavigate, useParams } from 'react-router'
import Alert from '@mui/material/Alert'
import Box from '@mui/material/Box'
import Button from '@mui/material/Button'
import type { GridColDef } from '@mui/x-data-grid'
import Breadcrumbs from '../../components/Breadcrumbs'
import ListPage from '../../components/ListPage'
import PurposeField from '../../components/PurposeField'
import { foldPurpose, purposeProblem, usePurposeSetting } from '../../lib/purpose'
import { errorText } from '../../components/errorText'
import { useConfirm, useNotify } from '../../components/feedback'
import { useServerSorting } from '../../components/useServerSorting'
import {
  useAdvancedResultsQuery,
  useAdvancedSearchMutation,
  useOpenAdvancedResultMutation,
  type AdvancedResultRow,
} from '../../store/generated/bemteviApi'
import { anyFilled, criteriaOf, FIELDS, formOf } from './criteria'

const PER_PAGE = 10
const SORTABLE = ['name', 'kind', 'city', 'state']

/** advanced-query-result-list/...: the search (run once per set of criteria, free), then its list, page by page. */
export default function AdvancedResultListPage() {
  const { t, i18n } = useTranslation()
  const navigate = useNavigate()
  const params = useParams()
  const criteria = useMemo(() => criteriaOf(params), [params])
  const key = FIELDS.map((f) => criteria[f]).join('\u0000')
  const [search, { data: searched, error: searchError, isLoading: searching }] = useAdvancedSearchMutation()
  const asked = useRef<string | null>(null)
  useEffect(() => {
    if (asked.current === key || !anyFilled(criteria)) return
    asked.current = key
    void search({ advancedQueryForm: formOf(criteria) })
  }, [key, criteria, search])

  const [page, setPage] = useState(1)
  const { order, sorting } = useServerSorting(SORTABLE, () => setPage(1))
  const searchId = searched?.data.id
  const listed = useAdvancedResultsQuery(
    { searchId: searchId ?? '', page, perPage: PER_PAGE, order },
    { skip: !searchId },
  )
  const [openResult, { isLoading: opening }] = useOpenAdvancedResultMutation()
  const confirm = useConfirm()
  const notify = useNotify()
  const cost = searched?.data.costPerResult ?? 1
  // What an opened result is for: recorded with its consultation (the group may require it).
  const purposeSetting = usePurposeSetting()
  const [purpose, setPurpose] = useState('')
  const [purposeError, setPurposeError] = useState<'required' | 'tooLong' | null>(null)

  const columns = useMemo<GridColDef<AdvancedResultRow>[]>(() => {
    async function open(row: AdvancedResultRow) {
      if (!searchId) return
      const problem = purposeProblem(purpose, purposeSetting.required, purposeSetting.maxLength)
      setPurposeError(problem)
      if (problem) return
      const said = foldPurpose(purpose)
      const ok = await confirm({ message: t('advanced.confirmOpen', { name: row.name, count: cost }), variant: 'yesNo' })
      if (!ok) return
      const result = await openResult({ searchId, ref: row.ref, body: said ? { purpose: said } : null })
      if ('error' in result) {
        notify({ type: 'negative', message: errorText(result.error, t, (k) => i18n.exists(k)) })
        return
      }
      const c = result.data.data
      const component = c.documentType === 'cpf' ? 'person' : 'company'
      navigate(`/advanced-query-result/${c.document}/${c.documentType}/${c.queryType}/-/${c.id}/${component}`, {
        state: { list: window.location.pathname },
      })
    }
    return [
      { field: 'name', headerName: t('advanced.name'), flex: 1.5, minWidth: 180 },
      { field: 'kind', headerName: t('advanced.kind'), minWidth: 100, valueFormatter: (v: string) => t(`advanced.kinds.${v}`) },
      { field: 'maskedDocument', headerName: t('advanced.document'), minWidth: 160, sortable: false },
      { field: 'city', headerName: t('advanced.city'), flex: 1, minWidth: 130 },
      { field: 'state', headerName: t('advanced.state'), minWidth: 70 },
      {
        field: 'actions',
        headerName: t('advanced.actions'),
        sortable: false,
        minWidth: 170,
        renderCell: ({ row }) => (
          <Button size="small" variant="outlined" disabled={opening} onClick={() => void open(row)} data-testid="advanced-open">
            {t('advanced.open', { count: cost })}
          </Button>
        ),
      },
    ]
  }, [t, i18n, confirm, notify, openResult, opening, searchId, cost, navigate, purpose, purposeSetting.required, purposeSetting.maxLength])

  const filled = FIELDS.filter((f) => criteria[f]).map((f) => `${t(`advanced.fields.${f}`)}: ${criteria[f]}`)
  const error = searchError ?? listed.error
  const available = searched?.data.available
  const intro = searched ? (
    <span data-testid="advanced-cost">
      {t('advanced.cost', { count: cost })}{' '}
      {available === null || available === undefined ? t('advanced.unlimited') : t('advanced.available', { count: available })}
    </span>
  ) : null

  return (
    <div className="page advanced-results">
      <Breadcrumbs items={[{ label: t('advanced.breadcrumbForm'), to: '/advanced-query' }, { label: t('advanced.results') }]} />
      <ListPage<AdvancedResultRow>
        title={t('advanced.results')}
        actions={
          <Button variant="outlined" component={Link} to="/advanced-query" data-testid="advanced-new-search">
            {t('advanced.newSearch')}
          </Button>
        }
        intro={intro}
        top={
          <>
            <p className="muted small" data-testid="advanced-criteria">
              {filled.length ? t('advanced.criteria', { criteria: filled.join(' · ') }) : t('advanced.noCriteria')}
            </p>
            <Box sx={{ display: 'flex', mb: 1 }}>
              <PurposeField
                value={purpose}
                onChange={(value) => {
                  setPurpose(value)
                  setPurposeError(null)
                }}
                required={purposeSetting.required}
                maxLength={purposeSetting.maxLength}
                problem={purposeError}
                testId="advanced-purpose"
                fullWidth
              />
            </Box>
            {searched?.data.capped && (
              <Alert severity="info" sx={{ mb: 1 }}>
                {t('advanced.capped', { count: searched.data.maxMatches })}
              </Alert>
            )}
          </>
        }
        columns={columns}
        rows={anyFilled(criteria) ? listed.data?.data : []}
        getRowId={(row) => row.ref}
        loading={searching || listed.isFetching}
        error={error ? errorText(error, t, (k) => i18n.exists(k)) : null}
        emptyText={anyFilled(criteria) ? t('advanced.empty') : t('advanced.noCriteria')}
        paging={{ total: listed.data?.total ?? 0, page, pageSize: PER_PAGE, onPage: setPage }}
        sorting={sorting}
        testId="advanced-list"
        rowTestId="advanced-row"
      />
    </div>
  )
}
