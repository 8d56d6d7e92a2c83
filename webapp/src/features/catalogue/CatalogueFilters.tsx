import { useTranslation } from 'react-i18next'
import TextField from '@mui/material/TextField'

import StatusFilter from './StatusFilter'
import type { StatusChoice } from './status'

/** The catalogue lists' filters: a search box and the status filter; a change of either goes back to page 1. */
export default function CatalogueFilters({
  search,
  onSearch,
  searchHint,
  status,
  onStatus,
  testIdPrefix,
}: {
  search: string
  onSearch: (value: string) => void
  searchHint: string
  status: StatusChoice
  onStatus: (value: StatusChoice) => void
  /** `layout` gives the test ids `layout-search` and `layout-status-filter`. */
  testIdPrefix: string
}) {
  const { t } = useTranslation()
  return (
    <>
      <TextField
        type="search"
        label={t('catalogue.search')}
        placeholder={searchHint}
        value={search}
        onChange={(e) => onSearch(e.target.value)}
        slotProps={{ htmlInput: { 'data-testid': `${testIdPrefix}-search` } }}
      />
      <StatusFilter value={status} onChange={onStatus} testId={`${testIdPrefix}-status-filter`} />
    </>
  )
}
