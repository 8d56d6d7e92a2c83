import { useMemo, useState } from 'react'
import { useTranslation } from 'react-i18next'
import { Link } from 'react-router'
import Button from '@mui/material/Button'
import Chip from '@mui/material/Chip'
import Stack from '@mui/material/Stack'
import TextField from '@mui/material/TextField'
import type { GridColDef } from '@mui/x-data-grid'
import ListPage from '../../components/ListPage'
import { errorText } from '../../components/errorText'
import { useConfirm, useNotify } from '../../components/feedback'
import type { CsvColumn } from '../../lib/csv'
import { showDateTime } from '../../lib/format'
import { useQueryTypeName } from '../../lib/queryTypeName'
import { useAppSelector } from '../../store/hooks'
import { useChangeSupplierStatusMutation, useListSuppliersQuery, type SupplierData } from '../../store/generated/bemteviApi'

const PER_PAGE = 20

export default function SuppliersPage() {
  const { t, i18n } = useTranslation()
  const typeName = useQueryTypeName()
  const lang = i18n.language
  const position = useAppSelector((s) => s.session.lastPosition)
  const [search, setSearch] = useState('')
  const [page, setPage] = useState(1)
  const { data, error, isFetching, isError, refetch } = useListSuppliersQuery(
    { search: search.trim() || undefined, page, perPage: PER_PAGE, position },
    { refetchOnMountOrArgChange: true },
  )
  const confirm = useConfirm()
  const notify = useNotify()
  const [setStatus, { isLoading: changing }] = useChangeSupplierStatusMutation()

  const columns = useMemo<GridColDef<SupplierData>[]>(() => {
    async function toggleStatus(supplier: SupplierData) {
      const activating = !supplier.active
      const ok = await confirm({
        message: t(activating ? 'suppliers.confirmActivate' : 'suppliers.confirmInactivate', { name: supplier.name }),
        variant: 'yesNo',
      })
      if (!ok) return
      const result = await setStatus({ supplierId: supplier.id, supplierStatusRequest: { active: activating } })
      if ('error' in result) notify({ type: 'negative', message: errorText(result.error, t, (k) => i18n.exists(k)) })
      else notify({ type: 'positive', message: t(activating ? 'suppliers.activated' : 'suppliers.inactivated') })
    }
    return [
      { field: 'name', headerName: t('suppliers.name'), flex: 1.2, minWidth: 160 },
      { field: 'contact', headerName: t('suppliers.contact'), flex: 1, minWidth: 160 },
      { field: 'url', headerName: t('suppliers.url'), flex: 1.2, minWidth: 180 },
      { field: 'authMethod', headerName: t('suppliers.authMethod'), minWidth: 140, valueFormatter: (v: string) => t(`suppliers.authMethods.${v}`) },
      {
        field: 'allowedQueryTypes',
        headerName: t('suppliers.allowedQueryTypes'),
        minWidth: 180,
        valueFormatter: (v: string[]) => v.map((k) => typeName(k)).join(', '),
      },
      {
        field: 'active',
        headerName: t('suppliers.status'),
        minWidth: 100,
        renderCell: ({ value }) => (
          <Chip size="small" color={value ? 'success' : 'default'} label={value ? t('suppliers.active') : t('suppliers.inactive')} data-testid="supplier-state" />
        ),
      },
      { field: 'updatedAt', headerName: t('suppliers.updatedAt'), minWidth: 150, valueFormatter: (v: string) => showDateTime(v, lang) },
      {
        field: 'actions',
        headerName: t('suppliers.actions'),
        sortable: false,
        minWidth: 190,
        renderCell: ({ row }) => (
          <Stack direction="row" sx={{ gap: 1, flexWrap: 'wrap' }}>
            <Button size="small" variant="outlined" component={Link} to={`/add-new-supplier/${row.id}/${row.id}`} data-testid="supplier-edit">
              {t('suppliers.edit')}
            </Button>
            <Button size="small" variant="outlined" disabled={changing} onClick={() => void toggleStatus(row)} data-testid="supplier-status">
              {row.active ? t('suppliers.inactivate') : t('suppliers.activate')}
            </Button>
          </Stack>
        ),
      },
    ]
  }, [t, i18n, typeName, lang, confirm, notify, setStatus, changing])

  const csvColumns: CsvColumn<SupplierData>[] = [
    { field: 'name', label: t('suppliers.name') },
    { field: 'contact', label: t('suppliers.contact') },
    { field: 'url', label: t('suppliers.url') },
    { field: 'authMethod', label: t('suppliers.authMethod'), format: (v) => t(`suppliers.authMethods.${String(v)}`) },
    { field: 'active', label: t('suppliers.status'), format: (v) => (v ? t('suppliers.active') : t('suppliers.inactive')) },
    { field: 'updatedAt', label: t('suppliers.updatedAt'), format: (v) => showDateTime(String(v), lang) },
  ]

  return (
    <ListPage<SupplierData>
      title={t('suppliers.title')}
      actions={
        <Button variant="contained" component={Link} to="/add-new-supplier" data-testid="supplier-add">
          {t('suppliers.add')}
        </Button>
      }
      filters={
        <TextField
          type="search"
          label={t('suppliers.search')}
          placeholder={t('suppliers.searchHint')}
          value={search}
          fullWidth
          onChange={(e) => {
            setSearch(e.target.value)
            setPage(1)
          }}
          slotProps={{ htmlInput: { 'data-testid': 'supplier-search' } }}
        />
      }
      columns={columns}
      rows={data?.data}
      loading={isFetching && !data}
      error={isError ? errorText(error, t, (k) => i18n.exists(k)) : null}
      onRetry={() => void refetch()}
      emptyText={t('suppliers.empty')}
      paging={{ total: data?.total ?? 0, page, pageSize: PER_PAGE, onPage: setPage }}
      csv={{ base: 'fornecedores', columns: csvColumns }}
      narrowHidden={['contact', 'url', 'authMethod', 'allowedQueryTypes', 'updatedAt']}
      testId="supplier-table"
      rowTestId="supplier-row"
    />
  )
}
