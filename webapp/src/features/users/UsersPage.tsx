import { useState } from 'react'
import { useTranslation } from 'react-i18next'
import { Link, useParams } from 'react-router'
import Spinner from '../../components/Spinner'
import { useConfirm, useNotify } from '../../components/feedback'
import { formatDateTimeBR } from '../../lib/format'
import { useAppSelector } from '../../store/hooks'
import UserFormCard from './UserFormCard'
import { userErrorText } from './serverError'
import {
  useArchiveUserMutation,
  useChangeUserStatusMutation,
  useListUsersQuery,
  type UserSummary,
} from '../../store/generated/bemteviApi'
import './users.css'
import Pagination from '../../components/Pagination'

const PAGE_SIZE = 20

export function StatusChip({ status }: { status: string }) {
  const { t } = useTranslation()
  return (
    <span className={`status-chip status-${status}`} data-testid="user-status">
      {t(`users.statuses.${status}`)}
    </span>
  )
}

/** users/:groupUniqueKey?/:groupId? — a group's users (one's own group unless a group is named). */
export default function UsersPage() {
  const { t, i18n } = useTranslation()
  const { groupId } = useParams()
  const position = useAppSelector((s) => s.session.lastPosition)
  const me = useAppSelector((s) => s.auth.authUser)
  const confirm = useConfirm()
  const notify = useNotify()
  const [search, setSearch] = useState('')
  const [page, setPage] = useState(1)
  const [editing, setEditing] = useState<UserSummary | 'new' | null>(null)
  const { data, error, isLoading, isError } = useListUsersQuery(
    { groupId, search: search.trim() || undefined, page, pageSize: PAGE_SIZE, position },
    { refetchOnMountOrArgChange: true },
  )
  const [setActive] = useChangeUserStatusMutation()
  const [archive] = useArchiveUserMutation()
  const exists = (k: string) => i18n.exists(k)
  const pages = data ? Math.max(1, Math.ceil(data.total / PAGE_SIZE)) : 1

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

  return (
    <div className="page users">
      <div className="page-header">
        <h1>{t('users.title')}</h1>
        {editing === null && (
          <button type="button" className="btn btn-primary" onClick={() => setEditing('new')} data-testid="user-add">
            {t('users.add')}
          </button>
        )}
      </div>
      {editing !== null && (
        <UserFormCard
          key={editing === 'new' ? 'new' : editing.id}
          user={editing === 'new' ? null : editing}
          groupId={groupId}
          onClose={() => setEditing(null)}
        />
      )}
      <div className="filters card">
        <label>
          {t('users.search')}
          <input
            type="search"
            value={search}
            placeholder={t('users.searchHint')}
            onChange={(e) => {
              setSearch(e.target.value)
              setPage(1)
            }}
            data-testid="user-search"
          />
        </label>
      </div>
      <section className="card">
        {isLoading ? (
          <Spinner />
        ) : isError || !data ? (
          <div className="alert alert-error" role="alert">
            {userErrorText(error, t, exists)}
          </div>
        ) : data.data.length === 0 ? (
          <p className="muted">{t('users.empty')}</p>
        ) : (
          <div className="table-scroll">
            <table className="data-table" data-testid="user-table">
              <thead>
                <tr>
                  <th scope="col">{t('users.name')}</th>
                  <th scope="col">{t('users.email')}</th>
                  <th scope="col">{t('users.role')}</th>
                  <th scope="col">{t('users.status')}</th>
                  <th scope="col">{t('users.createdAt')}</th>
                  <th scope="col">{t('users.actions')}</th>
                </tr>
              </thead>
              <tbody>
                {data.data.map((u) => {
                  const self = me !== null && String(me.id) === u.id
                  return (
                    <tr key={u.id} data-testid="user-row" data-email={u.email}>
                      <th scope="row">{u.name}</th>
                      <td>{u.email}</td>
                      <td>{t(`users.roles.${u.role}`)}</td>
                      <td>
                        <StatusChip status={u.status} />
                      </td>
                      <td>{formatDateTimeBR(u.createdAt) ?? '--'}</td>
                      <td>
                        <div className="row-actions">
                          <button type="button" className="btn" onClick={() => setEditing(u)} data-testid="user-edit">
                            {t('users.edit')}
                          </button>
                          <Link
                            className="btn"
                            to={self ? '/personal-information/users' : `/personal-information/users/${u.uniqueKey}/${u.id}`}
                            data-testid="user-profile"
                          >
                            {t('users.profile')}
                          </Link>
                          {!self && (
                            <>
                              <button type="button" className="btn" onClick={() => void toggle(u)} data-testid="user-toggle">
                                {u.status === 'inactive' ? t('users.activate') : t('users.inactivate')}
                              </button>
                              <button type="button" className="btn btn-danger" onClick={() => void remove(u)} data-testid="user-archive">
                                {t('users.archive')}
                              </button>
                            </>
                          )}
                        </div>
                      </td>
                    </tr>
                  )
                })}
              </tbody>
            </table>
          </div>
        )}
        {data && <p className="muted small">{t('users.total', { count: data.total })}</p>}
        <Pagination page={page} pages={pages} onPage={setPage} />
      </section>
    </div>
  )
}
