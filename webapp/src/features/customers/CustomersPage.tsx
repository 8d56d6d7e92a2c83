import { useMemo, useState } from 'react'
import { useTranslation } from 'react-i18next'
import { Link } from 'react-router'
import Button from '@mui/material/Button'
import Chip from '@mui/material/Chip'
import Stack from '@mui/material/Stack'
import TextField from '@mui/material/TextField'
import type { GridColDef } from '@mui/x-data-grid'
import ListPage from '../../components/ListPage'
import { useServerSorting } from '../../components/useServerSorting'
import { errorText } from '../../components/errorText'
import { useConfirm, useNotify } from '../../components/feedback'
import type { CsvColumn } from '../../lib/csv'
import { formatCnpj } from '../../lib/documents'
import { display, showDateTime } from '../../lib/format'
import { useAppSelector } from '../../store/hooks'
import { useChangeCustomerStatusMutation, useListCustomersQuery, type CustomerSummary } from '../../store/generated/bemteviApi'

const PER_PAGE = 20

export default function CustomersPage() {
  const { t, i18n } = useTranslation()
  const lang = i18n.language
  const position = useAppSelector((s) => s.session.lastPosition)
  const [search, setSearch] = useState('')
  const [page, setPage] = useState(1)
  const { order, sorting } = useServerSorting(
    ['name', 'tradeName', 'cnpj', 'type', 'parentName', 'active', 'createdAt'],
    () => setPage(1),
  )
  const { data, error, isFetching, isError, refetch } = useListCustomersQuery(
    { search: search.trim() || undefined, page, perPage: PER_PAGE, order, position },
    { refetchOnMountOrArgChange: true },
  )
  const confirm = useConfirm()
  const notify = useNotify()
  const [setStatus, { isLoading: changing }] = useChangeCustomerStatusMutation()

  const columns = useMemo<GridColDef<CustomerSummary>[]>(() => {
    async function toggleStatus(customer: CustomerSummary) {
      const activating = !customer.active
      const ok = await confirm({
        message: t(activating ? 'customers.confirmActivate' : 'customers.confirmInactivate', { name: customer.name }),
        variant: 'yesNo',
      })
      if (!ok) return
      const result = await setStatus({ groupId: customer.id, statusRequest: { active: activating } })
      if ('error' in result) notify({ type: 'negative', message: errorText(result.error, t, (k) => i18n.exists(k)) })
      else notify({ type: 'positive', message: t(activating ? 'customers.activated' : 'customers.inactivated') })
    }
    return [
      { field: 'name', headerName: t('customers.companyName'), flex: 1.4, minWidth: 180 },
      { field: 'tradeName', headerName: t('customers.tradeName'), flex: 1, minWidth: 140, valueFormatter: (v) => display(v) },
      {
        field: 'cnpj',
        headerName: t('customers.cnpj'),
        minWidth: 160,
        valueFormatter: (v: string | null) => (v ? formatCnpj(v) : '-'),
      },
      { field: 'type', headerName: t('customers.type'), minWidth: 100, valueFormatter: (v: string) => t(`customers.types.${v}`) },
      { field: 'parentName', headerName: t('customers.parent'), flex: 1, minWidth: 140, valueFormatter: (v) => display(v) },
      {
        field: 'active',
        headerName: t('customers.status'),
        minWidth: 100,
        renderCell: ({ value }) => (
          <Chip size="small" color={value ? 'success' : 'default'} label={value ? t('customers.active') : t('customers.inactive')} />
        ),
      },
      { field: 'createdAt', headerName: t('customers.createdAt'), minWidth: 140, valueFormatter: (v: string) => showDateTime(v, lang) },
      {
        field: 'actions',
        headerName: t('customers.actions'),
        sortable: false,
        // Narrow enough that every column fits a 1440 px screen beside the menu: the buttons stack.
        minWidth: 130,
        renderCell: ({ row }) => (
          <Stack sx={{ gap: 0.75, py: 0.5, alignItems: 'stretch' }}>
            <Button
              size="small"
              variant="outlined"
              component={Link}
              to={`/add-new-customer/${row.uniqueKey}/${row.id}`}
              data-testid="customer-edit"
            >
              {t('customers.edit')}
            </Button>
            {/* The guided set-up again, for a customer left half set up (or to walk its steps once more). */}
            <Button
              size="small"
              variant="outlined"
              component={Link}
              to={`/add-new-customer/setup/${row.uniqueKey}/${row.id}`}
              data-testid="customer-setup"
            >
              {t('customers.setup.continue')}
            </Button>
            {/* The customer's users: its owner's invitation, who else it has, their roles. */}
            <Button size="small" variant="outlined" component={Link} to={`/users/${row.uniqueKey}/${row.id}`} data-testid="customer-users">
              {t('customers.users')}
            </Button>
            <Button
              size="small"
              variant="outlined"
              disabled={changing}
              onClick={() => void toggleStatus(row)}
              data-testid="customer-status"
            >
              {row.active ? t('customers.inactivate') : t('customers.activate')}
            </Button>
          </Stack>
        ),
      },
    ]
  }, [t, i18n, lang, confirm, notify, setStatus, changing])

  const csvColumns: CsvColumn<CustomerSummary>[] = [
    { field: 'name', label: t('customers.companyName') },
    { field: 'tradeName', label: t('customers.tradeName') },
    { field: 'cnpj', label: t('customers.cnpj'), format: (v) => (v ? formatCnpj(String(v)) : '') },
    { field: 'type', label: t('customers.type'), format: (v) => t(`customers.types.${String(v)}`) },
    { field: 'parentName', label: t('customers.parent') },
    { field: 'active', label: t('customers.status'), format: (v) => (v ? t('customers.active') : t('customers.inactive')) },
    { field: 'createdAt', label: t('customers.createdAt'), format: (v) => showDateTime(String(v), lang) },
  ]

  return (
    <ListPage<CustomerSummary>
      title={t('customers.title')}
      actions={
        <Button variant="contained" component={Link} to="/add-new-customer/setup" data-testid="customer-add">
          {t('customers.add')}
        </Button>
      }
      filters={
        <TextField
          type="search"
          label={t('customers.search')}
          placeholder={t('customers.searchHint')}
          value={search}
          fullWidth
          onChange={(e) => {
            setSearch(e.target.value)
            setPage(1)
          }}
          slotProps={{ htmlInput: { 'data-testid': 'customer-search' } }}
        />
      }
      columns={columns}
      rows={data?.data}
      loading={isFetching && !data}
      error={isError ? errorText(error, t, (k) => i18n.exists(k)) : null}
      onRetry={() => void refetch()}
      emptyText={search.trim() ? t('customers.empty') : t('customers.none')}
      emptyAction={
        !search.trim() && (
          <Button variant="contained" component={Link} to="/add-new-customer/setup" data-testid="customer-add-first">
            {t('customers.add')}
          </Button>
        )
      }
      paging={{ total: data?.total ?? 0, page, pageSize: PER_PAGE, onPage: setPage }}
      sorting={sorting}
      csv={{ base: 'clientes', columns: csvColumns }}
      narrowHidden={['tradeName', 'type', 'parentName', 'active', 'createdAt']}
      testId="customer-table"
      rowTestId="customer-row"
    />
  )
}
