import { useMemo, useState } from 'react'
import { useTranslation } from 'react-i18next'
import { Link, useNavigate } from 'react-router'
import Alert from '@mui/material/Alert'
import Box from '@mui/material/Box'
import Button from '@mui/material/Button'
import Stack from '@mui/material/Stack'
import Tab from '@mui/material/Tab'
import Tabs from '@mui/material/Tabs'
import type { GridColDef } from '@mui/x-data-grid'
import ListPage from '../../components/ListPage'
import { errorText } from '../../components/errorText'
import { useNotify } from '../../components/feedback'
import type { CsvColumn } from '../../lib/csv'
import { useAppSelector } from '../../store/hooks'
import {
  useChangeLayoutStatusMutation,
  useCopyLayoutMutation,
  useListLayoutsQuery,
  type LayoutView,
} from '../../store/generated/bemteviApi'
import CatalogueFilters from './CatalogueFilters'
import { statusColumn, statusCsvColumns, useCatalogueFilters, useStatusChange } from './catalogueList'

const PER_PAGE = 20

type Scope = 'mine' | 'ready'

/**
 * layout-list: the layouts files are read and returned by. "Mine": the platform's (a super-admin) or the
 * group's own (an owner or an admin); "ready": the layouts the platform ships, each copied in one action.
 */
export default function LayoutsPage() {
  const { t, i18n } = useTranslation()
  const lang = i18n.language
  const position = useAppSelector((s) => s.session.lastPosition)
  const { page, setPage, filtered, filterProps, query } = useCatalogueFilters()
  const [scope, setScope] = useState<Scope>('mine')
  const { data, error, isFetching, isError, refetch } = useListLayoutsQuery(
    { ...query, perPage: PER_PAGE, position, scope },
    { refetchOnMountOrArgChange: true },
  )
  const changeStatusOf = useStatusChange('layouts')
  const notify = useNotify()
  const [changeStatus, { isLoading: changing }] = useChangeLayoutStatusMutation()
  const [copy, { isLoading: copying }] = useCopyLayoutMutation()
  const navigate = useNavigate()

  const columns = useMemo<GridColDef<LayoutView>[]>(() => {
    const toggle = (row: LayoutView) =>
      changeStatusOf(row, row.fileName, (active) => changeStatus({ layoutId: row.id, statusRequest: { active } }))
    async function copyToMine(row: LayoutView) {
      const result = await copy({ layoutId: row.id })
      if ('error' in result) {
        notify({
          type: 'negative',
          message: errorText(result.error, t, (k) => i18n.exists(k)),
        })
        return
      }
      notify({ type: 'positive', message: t('catalogue.layouts.copied') })
      void navigate(`/add-new-layout/${result.data.id}/${result.data.id}`)
    }
    return [
      {
        field: 'fileName',
        headerName: scope === 'ready' ? t('catalogue.layouts.name') : t('catalogue.layouts.fileName'),
        flex: 1.2,
        minWidth: 160,
        valueGetter: (_v, row) => row.readyTitle?.[lang] ?? row.fileName,
      },
      {
        field: 'finalFileName',
        headerName: t('catalogue.layouts.finalFileName'),
        flex: 1,
        minWidth: 150,
      },
      {
        field: 'kind',
        headerName: t('catalogue.layouts.kind'),
        minWidth: 130,
        valueFormatter: (v: string) => t(`catalogue.layouts.kinds.${v}`),
      },
      {
        field: 'extensions',
        headerName: t('catalogue.layouts.extensions'),
        minWidth: 150,
        sortable: false,
        valueGetter: (_v, row) => `${row.acceptedExtension.toUpperCase()} → ${row.returnExtension.toUpperCase()}`,
      },
      {
        field: 'table',
        headerName: t('catalogue.layouts.table'),
        minWidth: 110,
      },
      {
        field: 'rowCount',
        headerName: t('catalogue.layouts.rows'),
        minWidth: 90,
        sortable: false,
        valueGetter: (_v, row) => row.rows.length,
      },
      statusColumn<LayoutView>(t),
      {
        field: 'actions',
        headerName: t('catalogue.actions'),
        sortable: false,
        minWidth: 190,
        renderCell: ({ row }) =>
          row.ready ? (
            <Stack direction="row" sx={{ gap: 1, flexWrap: 'wrap', py: 0.5 }}>
              <Button
                size="small"
                variant="contained"
                disabled={copying}
                onClick={() => void copyToMine(row)}
                aria-label={`${t('catalogue.layouts.copy')}: ${row.readyTitle?.[lang] ?? row.fileName}`}
                data-testid="layout-copy"
              >
                {t('catalogue.layouts.copyShort')}
              </Button>
            </Stack>
          ) : (
            <Stack direction="row" sx={{ gap: 1, flexWrap: 'wrap', py: 0.5 }}>
              <Button size="small" variant="outlined" component={Link} to={`/add-new-layout/${row.id}/${row.id}`} data-testid="layout-edit">
                {t('catalogue.edit')}
              </Button>
              <Button size="small" variant="outlined" disabled={changing} onClick={() => void toggle(row)} data-testid="layout-status">
                {row.active ? t('catalogue.inactivate') : t('catalogue.activate')}
              </Button>
            </Stack>
          ),
      },
    ]
  }, [t, i18n, lang, scope, changeStatusOf, notify, changeStatus, changing, copy, copying, navigate])

  const csvColumns: CsvColumn<LayoutView>[] = [
    { field: 'fileName', label: t('catalogue.layouts.fileName') },
    { field: 'finalFileName', label: t('catalogue.layouts.finalFileName') },
    {
      field: 'kind',
      label: t('catalogue.layouts.kind'),
      format: (v) => t(`catalogue.layouts.kinds.${String(v)}`),
    },
    {
      field: 'acceptedExtension',
      label: t('catalogue.layouts.acceptedExtension'),
    },
    { field: 'returnExtension', label: t('catalogue.layouts.returnExtension') },
    { field: 'table', label: t('catalogue.layouts.table') },
    ...statusCsvColumns<LayoutView>(t, lang),
  ]

  return (
    <ListPage<LayoutView>
      title={t('catalogue.layouts.title')}
      actions={
        <Button variant="contained" component={Link} to="/add-new-layout" data-testid="layout-add">
          {t('catalogue.layouts.add')}
        </Button>
      }
      top={
        <Box sx={{ display: 'grid', gap: 1, minWidth: 0 }}>
          <Tabs
            value={scope}
            onChange={(_e, value: Scope) => {
              setScope(value)
              setPage(1)
            }}
            variant="scrollable"
            allowScrollButtonsMobile
            aria-label={t('catalogue.layouts.title')}
          >
            <Tab value="mine" label={t('catalogue.layouts.scopes.mine')} data-testid="layout-scope-mine" />
            <Tab value="ready" label={t('catalogue.layouts.scopes.ready')} data-testid="layout-scope-ready" />
          </Tabs>
          {scope === 'ready' && <Alert severity="info">{t('catalogue.layouts.readyHint')}</Alert>}
        </Box>
      }
      filters={
<CatalogueFilters {...filterProps} searchHint={t('catalogue.layouts.searchHint')} testIdPrefix="layout" />
      }
      columns={columns}
      rows={data?.data}
      loading={isFetching && !data}
      error={isError ? errorText(error, t, (k) => i18n.exists(k)) : null}
      onRetry={() => void refetch()}
      emptyText={filtered ? t('catalogue.layouts.empty') : t('catalogue.layouts.noneMine')}
      emptyAction={
        !filtered && (
          <Stack direction="row" sx={{ gap: 1, flexWrap: 'wrap', justifyContent: 'center' }}>
            <Button variant="contained" onClick={() => setScope('ready')} data-testid="layout-see-ready">
              {t('catalogue.layouts.scopes.ready')}
            </Button>
            <Button variant="outlined" component={Link} to="/add-new-layout" data-testid="layout-add-first">
              {t('catalogue.layouts.add')}
            </Button>
          </Stack>
        )
      }
      paging={{
        total: data?.total ?? 0,
        page,
        pageSize: PER_PAGE,
        onPage: setPage,
      }}
      csv={{ base: 'layouts', columns: csvColumns }}
      narrowHidden={['finalFileName', 'kind', 'extensions', 'table', 'rowCount']}
      testId="layout-table"
      rowTestId="layout-row"
    />
  )
}
