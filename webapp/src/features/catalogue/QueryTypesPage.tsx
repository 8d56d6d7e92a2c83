import { useMemo } from 'react'
import { useTranslation } from 'react-i18next'
import { Link } from 'react-router'
import Button from '@mui/material/Button'
import Chip from '@mui/material/Chip'
import Stack from '@mui/material/Stack'
import type { GridColDef } from '@mui/x-data-grid'
import ListPage from '../../components/ListPage'
import { errorText } from '../../components/errorText'
import type { CsvColumn } from '../../lib/csv'
import { useQueryTypeDescription, useQueryTypeName } from '../../lib/queryTypeName'
import { useAppSelector } from '../../store/hooks'
import {
  useChangeQueryTypeStatusMutation,
  useListQueryTypesQuery,
  type QueryTypeView,
} from '../../store/generated/bemteviApi'
import CatalogueFilters from './CatalogueFilters'
import { statusColumn, statusCsvColumns, useCatalogueFilters, useStatusChange } from './catalogueList'

const PER_PAGE = 20

/** queries-list: the query type catalogue (super-admin). */
export default function QueryTypesPage() {
  const { t, i18n } = useTranslation()
  const typeName = useQueryTypeName()
  const typeDescription = useQueryTypeDescription()
  const lang = i18n.language
  const position = useAppSelector((s) => s.session.lastPosition)
  const { page, setPage, filterProps, query } = useCatalogueFilters()
  const { data, error, isFetching, isError, refetch } = useListQueryTypesQuery(
    { ...query, perPage: PER_PAGE, position },
    { refetchOnMountOrArgChange: true },
  )
  const changeStatusOf = useStatusChange('queryTypes')
  const [changeStatus, { isLoading: changing }] = useChangeQueryTypeStatusMutation()

  const columns = useMemo<GridColDef<QueryTypeView>[]>(() => {
    const documents = (row: QueryTypeView) =>
      (['cpf', 'cnpj'] as const)
        .filter((kind) => row.toggles[kind])
        .map((kind) => t(`catalogue.queryTypes.toggle.${kind}`))
        .join(', ')
    const toggle = (row: QueryTypeView) => changeStatusOf(row, typeName(row.key, row.name), (active) => changeStatus({ key: row.key, statusRequest: { active } }))
    return [
      {
        field: 'name',
        headerName: t('catalogue.queryTypes.name'),
        flex: 1.4,
        minWidth: 180,
        renderCell: ({ row }) => (
          <Stack direction="row" sx={{ gap: 1, alignItems: 'center', flexWrap: 'wrap', py: 0.5 }}>
            <Chip size="small" variant="outlined" label={row.badge} />
            <span data-testid="query-type-list-name">{typeName(row.key, row.name)}</span>
          </Stack>
        ),
      },
      { field: 'key', headerName: t('catalogue.queryTypes.key'), flex: 1, minWidth: 140 },
      {
        field: 'documents',
        headerName: t('catalogue.queryTypes.documents'),
        minWidth: 130,
        sortable: false,
        valueGetter: (_v, row) => documents(row),
      },
      {
        field: 'days',
        headerName: t('catalogue.queryTypes.daysHeader'),
        minWidth: 170,
        sortable: false,
        valueGetter: (_v, row) => t('catalogue.queryTypes.days', { cache: row.cacheDays, validity: row.validityDays }),
      },
      {
        field: 'default',
        headerName: t('catalogue.queryTypes.isDefault'),
        minWidth: 100,
        renderCell: ({ value }) => (value ? <Chip size="small" color="primary" label={t('catalogue.queryTypes.isDefault')} /> : '-'),
      },
      statusColumn<QueryTypeView>(t),
      {
        field: 'actions',
        headerName: t('catalogue.actions'),
        sortable: false,
        minWidth: 190,
        renderCell: ({ row }) => (
          <Stack direction="row" sx={{ gap: 1, flexWrap: 'wrap', py: 0.5 }}>
            <Button size="small" variant="outlined" component={Link} to={`/add-new-query/${row.key}`} data-testid="query-type-edit">
              {t('catalogue.edit')}
            </Button>
            <Button size="small" variant="outlined" disabled={changing} onClick={() => void toggle(row)} data-testid="query-type-status">
              {row.active ? t('catalogue.inactivate') : t('catalogue.activate')}
            </Button>
          </Stack>
        ),
      },
    ]
  }, [t, typeName, changeStatusOf, changeStatus, changing])

  const csvColumns: CsvColumn<QueryTypeView>[] = [
    { field: 'name', label: t('catalogue.queryTypes.name'), format: (_, row) => typeName(row.key, row.name) },
    { field: 'key', label: t('catalogue.queryTypes.key') },
    { field: 'badge', label: t('catalogue.queryTypes.badge') },
    {
      field: 'description',
      label: t('catalogue.queryTypes.description'),
      format: (_, row) => typeDescription(row.key, row.description),
    },
    { field: 'cacheDays', label: t('catalogue.queryTypes.cacheDays') },
    { field: 'validityDays', label: t('catalogue.queryTypes.validityDays') },
    { field: 'default', label: t('catalogue.queryTypes.isDefault'), format: (v) => (v ? t('catalogue.queryTypes.isDefault') : '') },
    ...statusCsvColumns<QueryTypeView>(t, lang),
  ]

  return (
    <ListPage<QueryTypeView>
      title={t('catalogue.queryTypes.title')}
      actions={
        <Button variant="contained" component={Link} to="/add-new-query" data-testid="query-type-add">
          {t('catalogue.queryTypes.add')}
        </Button>
      }
      filters={
<CatalogueFilters {...filterProps} searchHint={t('catalogue.queryTypes.searchHint')} testIdPrefix="query-type" />
      }
      columns={columns}
      rows={data?.data}
      getRowId={(row) => row.key}
      loading={isFetching && !data}
      error={isError ? errorText(error, t, (k) => i18n.exists(k)) : null}
      onRetry={() => void refetch()}
      emptyText={t('catalogue.queryTypes.empty')}
      paging={{ total: data?.total ?? 0, page, pageSize: PER_PAGE, onPage: setPage }}
      csv={{ base: 'tipos-de-consulta', columns: csvColumns }}
      narrowHidden={['key', 'documents', 'days', 'default']}
      testId="query-type-table"
      rowTestId="query-type-row"
    />
  )
}
