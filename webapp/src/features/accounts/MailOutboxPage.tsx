import { useState } from 'react'
import { useTranslation } from 'react-i18next'
import { showDateTime } from '../../lib/format'
import { useOutboxQuery, type OutboxMail } from '../../store/generated/bemteviApi'
import './accounts.css'

const PER_PAGE = 20

/** The super-admin's mail outbox: what the system sent, kept (no SMTP) or failed to send. */
export default function MailOutboxPage() {
  const { t, i18n } = useTranslation()
  const [page, setPage] = useState(1)
  const [open, setOpen] = useState<OutboxMail | null>(null)
  const { data, isFetching } = useOutboxQuery({ page, perPage: PER_PAGE }, { pollingInterval: 5000 })
  const pages = Math.max(1, Math.ceil((data?.total ?? 0) / PER_PAGE))
  const reason = (r: string) => (i18n.exists(`accounts.outbox.reasons.${r}`) ? t(`accounts.outbox.reasons.${r}`) : r)

  return (
    <section className="card" data-testid="mail-outbox">
      <h1>{t('accounts.outbox.title')}</h1>
      <p className="muted">{t('accounts.outbox.text')}</p>
      {data && data.data.length === 0 && <p>{t('accounts.outbox.empty')}</p>}
      {data && data.data.length > 0 && (
        <table className="outbox-table">
          <thead>
            <tr>
              <th>{t('accounts.outbox.time')}</th>
              <th>{t('accounts.outbox.to')}</th>
              <th>{t('accounts.outbox.subject')}</th>
              <th>{t('accounts.outbox.reason')}</th>
              <th>{t('accounts.outbox.status')}</th>
              <th />
            </tr>
          </thead>
          <tbody>
            {data.data.map((mail) => (
              <tr key={mail.id} data-testid="outbox-row">
                <td>{showDateTime(mail.time)}</td>
                <td>{mail.to}</td>
                <td>{mail.subject}</td>
                <td>{reason(mail.reason)}</td>
                <td>
                  <span className={`outbox-status ${mail.status}`} title={mail.lastError ?? undefined}>
                    {t(`accounts.outbox.statuses.${mail.status}`)}
                  </span>
                </td>
                <td>
                  <button type="button" className="btn" onClick={() => setOpen(open?.id === mail.id ? null : mail)} data-testid="outbox-open">
                    {open?.id === mail.id ? t('accounts.outbox.close') : t('accounts.outbox.open')}
                  </button>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      {open && (
        <div className="card" role="region" aria-label={open.subject} data-testid="outbox-message">
          <h2>{open.subject}</h2>
          <p className="muted">
            {t('accounts.outbox.to')}: {open.to}
          </p>
          {open.lastError && <p className="field-error">{t('accounts.outbox.error', { error: open.lastError })}</p>}
          <pre className="outbox-message">{open.text ?? t('accounts.outbox.hidden')}</pre>
        </div>
      )}
      <div className="outbox-pager">
        <button type="button" className="btn" disabled={page <= 1 || isFetching} onClick={() => setPage((p) => p - 1)}>
          {t('accounts.outbox.previous')}
        </button>
        <span>{t('accounts.outbox.pageOf', { page, pages })}</span>
        <button type="button" className="btn" disabled={page >= pages || isFetching} onClick={() => setPage((p) => p + 1)}>
          {t('accounts.outbox.next')}
        </button>
      </div>
    </section>
  )
}
