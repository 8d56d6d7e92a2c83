import { useState } from 'react'
import { useTranslation } from 'react-i18next'
import { Link } from 'react-router'
import Spinner from '../../components/Spinner'
import { errorText } from '../../components/errorText'
import { useConfirm, useNotify } from '../../components/feedback'
import { formatDateTimeBR } from '../../lib/format'
import { useAppSelector } from '../../store/hooks'
import {
  useChangeCustomerStatusMutation,
  useListCustomersQuery,
  type CustomerSummary,
} from '../../store/generated/bemteviApi'
import Pagination from '../../components/Pagination'

const PER_PAGE = 20

export default function CustomersPage() {
  const { t, i18n } = useTranslation()
  const position = useAppSelector((s) => s.session.lastPosition)
  const [search, setSearch] = useState('')
  const [page, setPage] = useState(1)
  const { data, error, isLoading, isError } = useListCustomersQuery(
    { search: search.trim() || undefined, page, perPage: PER_PAGE, position },
    { refetchOnMountOrArgChange: true },
  )
  const pages = data ? Math.max(1, Math.ceil(data.total / PER_PAGE)) : 1
  const confirm = useConfirm()
  const notify = useNotify()
  const [setStatus, { isLoading: changing }] = useChangeCustomerStatusMutation()

  async function toggleStatus(customer: CustomerSummary) {
    const activating = !customer.active
    const ok = await confirm({
      message: t(activating ? 'customers.confirmActivate' : 'customers.confirmInactivate', { name: customer.name }),
      variant: 'yesNo',
    })
    if (!ok) return
    const result = await setStatus({ groupId: customer.id, statusRequest: { active: activating } })
    if ('error' in result) {
      notify({ type: 'negative', message: errorText(result.error, t, (k) => i18n.exists(k)) })
    } else notify({ type: 'positive', message: t(activating ? 'customers.activated' : 'customers.inactivated') })
  }
  return (
    <div className="page customers">
      <div className="page-header">
        <h1>{t('customers.title')}</h1>
        <Link to="/add-new-customer" className="btn btn-primary" data-testid="customer-add">
          {t('customers.add')}
        </Link>
      </div>
      <div className="filters card">
        <label>
          {t('customers.search')}
          <input
            type="search"
            value={search}
            placeholder={t('customers.searchHint')}
            onChange={(e) => {
              setSearch(e.target.value)
              setPage(1)
            }}
            data-testid="customer-search"
          />
        </label>
      </div>
      <section className="card">
        {isLoading ? (
          <Spinner />
        ) : isError || !data ? (
          <div className="alert alert-error" role="alert">
            {errorText(error, t, (k) => i18n.exists(k))}
          </div>
        ) : data.data.length === 0 ? (
          <p className="muted">{t('customers.empty')}</p>
        ) : (
          <div className="table-scroll">
            <table className="data-table" data-testid="customer-table">
              <thead>
                <tr>
                  <th scope="col">{t('customers.companyName')}</th>
                  <th scope="col">{t('customers.tradeName')}</th>
                  <th scope="col">{t('customers.cnpj')}</th>
                  <th scope="col">{t('customers.type')}</th>
                  <th scope="col">{t('customers.parent')}</th>
                  <th scope="col">{t('customers.status')}</th>
                  <th scope="col">{t('customers.createdAt')}</th>
                  <th scope="col">{t('customers.actions')}</th>
                </tr>
              </thead>
              <tbody>
                {data.data.map((c) => (
                  <tr key={c.id} data-testid="customer-row">
                    <th scope="row">{c.name}</th>
                    <td>{c.tradeName ?? '-'}</td>
                    <td>{c.cnpj ?? '-'}</td>
                    <td>{t(`customers.types.${c.type}`)}</td>
                    <td>{c.parentName ?? '-'}</td>
                    <td>{c.active ? t('customers.active') : t('customers.inactive')}</td>
                    <td>{formatDateTimeBR(c.createdAt)}</td>
                    <td>
                      <span className="row-actions">
                        <Link to={`/add-new-customer/${c.uniqueKey}/${c.id}`} className="btn btn-small" data-testid="customer-edit">
                          {t('customers.edit')}
                        </Link>
                        <button
                          type="button"
                          className="btn btn-small"
                          disabled={changing}
                          onClick={() => void toggleStatus(c)}
                          data-testid="customer-status"
                        >
                          {c.active ? t('customers.inactivate') : t('customers.activate')}
                        </button>
                      </span>
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        )}
        <Pagination page={page} pages={pages} onPage={setPage} />
      </section>
    </div>
  )
}
