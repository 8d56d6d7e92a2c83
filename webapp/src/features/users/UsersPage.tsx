import { useMemo, useState } from 'react'
import { useTranslation } from 'react-i18next'
import { Link, useParams } from 'react-router'
import Button from '@mui/material/Button'
import Chip, { type ChipProps } from '@mui/material/Chip'
import Tooltip from '@mui/material/Tooltip'
import Stack from '@mui/material/Stack'
import TextField from '@mui/material/TextField'
import type { GridColDef } from '@mui/x-data-grid'
import ListPage from '../../components/ListPage'
import { useServerSorting } from '../../components/useServerSorting'
import { useConfirm, useNotify } from '../../components/feedback'
import type { CsvColumn } from '../../lib/csv'
import { formatCpf, formatPhone } from '../../lib/documents'
import { showDateTime } from '../../lib/format'
import { useAppSelector } from '../../store/hooks'
import PurposeSettingSwitch from './PurposeSettingSwitch'
import UserFormCard from './UserFormCard'
import { userErrorText } from '../../components/users/serverError'
import { useArchiveUserMutation, useChangeUserStatusMutation, useListUsersQuery, type UserSummary } from '../../store/generated/bemteviApi'
import '../../components/users/users.css'

const PAGE_SIZE = 20

const STATUS_COLOR: Record<UserSummary['status'], ChipProps['color']> = {
  active: 'success',
  inactive: 'error',
  'first-access': 'warning',
  archived: 'default',
}

export function StatusChip({ status }: { status: UserSummary['status'] }) {
  const { t } = useTranslation()
  const label = t(`users.statuses.${status}`)
  // A narrow column cuts the label with an ellipsis; the whole label shows on hover or a long press.
  return (
    <Tooltip title={label} enterTouchDelay={300}>
      <Chip
        size="small"
        color={STATUS_COLOR[status]}
        label={label}
        // Two short lines in a phone's narrow column rather than a cut label.
        sx={{ maxWidth: '100%', height: 'auto', minHeight: 24, '& .MuiChip-label': { whiteSpace: 'normal', textAlign: 'center', lineHeight: 1.25, py: 0.25 } }}
        data-testid="user-status"
      />
    </Tooltip>
  )
}

/** users/:groupUniqueKey?/:groupId? — a group's users (one's own group unless a group is named). */
export default function UsersPage() {
  const { t, i18n } = useTranslation()
  const lang = i18n.language
  const { groupId } = useParams()
  const position = useAppSelector((s) => s.session.lastPosition)
  const me = useAppSelector((s) => s.auth.authUser)
  const confirm = useConfirm()
  const notify = useNotify()
  const [search, setSearch] = useState('')
  const [page, setPage] = useState(1)
  const [editing, setEditing] = useState<UserSummary | 'new' | null>(null)
  const { order, sorting } = useServerSorting(['name', 'email', 'role', 'status', 'createdAt'], () => setPage(1))
  const { data, error, isFetching, isError, refetch } = useListUsersQuery(
    { groupId, search: search.trim() || undefined, page, pageSize: PAGE_SIZE, order, position },
    { refetchOnMountOrArgChange: true },
  )
  const [setActive] = useChangeUserStatusMutation()
  const [archive] = useArchiveUserMutation()

  const columns = useMemo<GridColDef<UserSummary>[]>(() => {
    const exists = (k: string) => i18n.exists(k)
    async function toggle(user: UserSummary) {
      const activating = user.status === 'inactive'
      const ok = await confirm({
        message: t(activating ? 'users.confirmActivate' : 'users.confirmInactivate', { name: user.name }),
      })
      if (!ok) return
      const result = await setActive({ userId: user.id, userStatusRequest: { active: activating } })
      if ('error' in result) notify({ type: 'negative', message: userErrorText(result.error, t, exists) })
      else notify({ type: 'positive', message: t(activating ? 'users.activated' : 'users.inactivated') })
    }
    async function remove(user: UserSummary) {
      if (!(await confirm({ message: t('users.confirmArchive', { name: user.name }) }))) return
      const result = await archive({ userId: user.id })
      if ('error' in result) notify({ type: 'negative', message: userErrorText(result.error, t, exists) })
      else notify({ type: 'positive', message: t('users.archived') })
    }
    return [
      { field: 'name', headerName: t('users.name'), flex: 1, minWidth: 150 },
      { field: 'email', headerName: t('users.email'), flex: 1.2, minWidth: 190 },
      { field: 'role', headerName: t('users.role'), minWidth: 150, valueFormatter: (v: string) => t(`users.roles.${v}`) },
      {
        field: 'status',
        headerName: t('users.status'),
        minWidth: 150,
        renderCell: ({ row }) => <StatusChip status={row.status} />,
      },
      { field: 'createdAt', headerName: t('users.createdAt'), minWidth: 150, valueFormatter: (v: string | null) => showDateTime(v, lang) },
      {
        field: 'actions',
        headerName: t('users.actions'),
        sortable: false,
        minWidth: 260,
        flex: 1,
        renderCell: ({ row }) => {
          const self = me !== null && String(me.id) === row.id
          return (
            <Stack direction="row" sx={{ gap: 1, flexWrap: 'wrap' }}>
              <Button size="small" variant="outlined" onClick={() => setEditing(row)} data-testid="user-edit">
                {t('users.edit')}
              </Button>
              <Button
                size="small"
                variant="outlined"
                component={Link}
                to={self ? '/personal-information/users' : `/personal-information/users/${row.uniqueKey}/${row.id}`}
                data-testid="user-profile"
              >
                {t('users.profile')}
              </Button>
              {!self && (
                <>
                  <Button size="small" variant="outlined" onClick={() => void toggle(row)} data-testid="user-toggle">
                    {row.status === 'inactive' ? t('users.activate') : t('users.inactivate')}
                  </Button>
                  <Button size="small" variant="outlined" color="error" onClick={() => void remove(row)} data-testid="user-archive">
                    {t('users.archive')}
                  </Button>
                </>
              )}
            </Stack>
          )
        },
      },
    ]
  }, [t, i18n, lang, me, confirm, notify, setActive, archive])

  const csvColumns: CsvColumn<UserSummary>[] = [
    { field: 'name', label: t('users.name') },
    { field: 'email', label: t('users.email') },
    { field: 'cpf', label: 'CPF', format: (v) => (v ? formatCpf(String(v)) : '') },
    { field: 'phone', label: t('users.phone'), format: (v) => formatPhone(v ? String(v) : null) },
    { field: 'role', label: t('users.role'), format: (v) => t(`users.roles.${String(v)}`) },
    { field: 'status', label: t('users.status'), format: (v) => t(`users.statuses.${String(v)}`) },
    { field: 'createdAt', label: t('users.createdAt'), format: (v) => showDateTime(v ? String(v) : null, lang) },
  ]

  return (
    <ListPage<UserSummary>
      title={t('users.title')}
      top={<PurposeSettingSwitch groupId={groupId} />}
      actions={
        editing === null && (
          <Button variant="contained" onClick={() => setEditing('new')} data-testid="user-add">
            {t('users.add')}
          </Button>
        )
      }
      filters={
        <TextField
          type="search"
          label={t('users.search')}
          placeholder={t('users.searchHint')}
          value={search}
          fullWidth
          onChange={(e) => {
            setSearch(e.target.value)
            setPage(1)
          }}
          slotProps={{ htmlInput: { 'data-testid': 'user-search' } }}
        />
      }
      heading={data ? t('users.total', { count: data.total }) : undefined}
      columns={columns}
      rows={data?.data}
      loading={isFetching && !data}
      error={isError ? userErrorText(error, t, (k) => i18n.exists(k)) : null}
      onRetry={() => void refetch()}
      emptyText={search.trim() ? t('users.empty') : t('users.none')}
      emptyAction={
        !search.trim() &&
        editing === null && (
          <Button variant="contained" onClick={() => setEditing('new')} data-testid="user-add-first">
            {t('users.add')}
          </Button>
        )
      }
      paging={{ total: data?.total ?? 0, page, pageSize: PAGE_SIZE, onPage: setPage }}
      sorting={sorting}
      csv={{ base: 'usuarios', columns: csvColumns }}
      narrowHidden={['email', 'role', 'createdAt']}
      testId="user-table"
      rowTestId="user-row"
    >
      {editing !== null && (
        <UserFormCard
          key={editing === 'new' ? 'new' : editing.id}
          user={editing === 'new' ? null : editing}
          groupId={groupId}
          onClose={() => setEditing(null)}
        />
      )}
    </ListPage>
  )
}
