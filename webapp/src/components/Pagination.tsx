import { useTranslation } from 'react-i18next'

/** Previous / "Page N of M" / next under a list; nothing when everything fits on one page. */
export default function Pagination({
  page,
  pages,
  onPage,
}: {
  page: number
  pages: number
  onPage: (page: number) => void
}) {
  const { t } = useTranslation()
  if (pages <= 1) return null
  return (
    <nav className="pagination" aria-label={t('frame.pagination.label')}>
      <button type="button" className="btn" disabled={page <= 1} onClick={() => onPage(page - 1)}>
        {t('frame.pagination.previous')}
      </button>
      <span>{t('frame.pagination.pageOf', { page, pages })}</span>
      <button type="button" className="btn" disabled={page >= pages} onClick={() => onPage(page + 1)}>
        {t('frame.pagination.next')}
      </button>
    </nav>
  )
}
