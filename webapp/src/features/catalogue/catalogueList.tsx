import { useCallback, useState, type ComponentProps } from 'react'
import { useTranslation } from 'react-i18next'
import type { TFunction } from 'i18next'
import Chip from '@mui/material/Chip'
import type { GridColDef } from '@mui/x-data-grid'
import { errorText } from '../../components/errorText'
import { useConfirm, useNotify } from '../../components/feedback'
import type { CsvColumn } from '../../lib/csv'
import type { AnyError } from '../../lib/errors'
import { showDateTime } from '../../lib/format'
import type CatalogueFilters from './CatalogueFilters'
import { statusParam, type StatusChoice } from './status'

type Section = 'layouts' | 'queryTypes'

/** The catalogue lists' search, status and page; a new search or status goes back to page 1. */
export function useCatalogueFilters() {
  const [search, setSearch] = useState('')
  const [status, setStatus] = useState<StatusChoice>('all')
  const [page, setPage] = useState(1)
  const filterProps: Pick<ComponentProps<typeof CatalogueFilters>, 'search' | 'onSearch' | 'status' | 'onStatus'> = {
    search,
    onSearch: (value) => {
      setSearch(value)
      setPage(1)
    },
    status,
    onStatus: (value) => {
      setStatus(value)
      setPage(1)
    },
  }
  return {
    page,
    setPage,
    filtered: search.trim() !== '' || status !== 'all',
    filterProps,
    /** The list call's filter and page. */
    query: { search: search.trim() || undefined, active: statusParam(status), page },
  }
}

/** Activates or inactivates a catalogue row once the user confirms, and says how it went. */
export function useStatusChange(section: Section) {
  const { t, i18n } = useTranslation()
  const confirm = useConfirm()
  const notify = useNotify()
  return useCallback(
    async (row: { active: boolean }, name: string, change: (active: boolean) => Promise<{ error: AnyError } | { data: unknown }>) => {
      const activating = !row.active
      const ok = await confirm({
        message: t(activating ? `catalogue.${section}.confirmActivate` : `catalogue.${section}.confirmInactivate`, { name }),
        variant: 'yesNo',
      })
      if (!ok) return
      const result = await change(activating)
      if ('error' in result) notify({ type: 'negative', message: errorText(result.error, t, (k) => i18n.exists(k)) })
      else notify({ type: 'positive', message: t(activating ? `catalogue.${section}.activated` : `catalogue.${section}.inactivated`) })
    },
    [t, i18n, confirm, notify, section],
  )
}

/** The lists' status column: a chip, green when active. */
export function statusColumn<R extends { active: boolean }>(t: TFunction): GridColDef<R> {
  return {
    field: 'active',
    headerName: t('catalogue.status'),
    minWidth: 100,
    renderCell: ({ value }) => <Chip size="small" color={value ? 'success' : 'default'} label={value ? t('catalogue.active') : t('catalogue.inactive')} />,
  }
}

/** The CSV's last columns of either list: the status and when the row was created. */
export function statusCsvColumns<R extends { active: boolean; createdAt: string }>(t: TFunction, lang: string): CsvColumn<R>[] {
  return [
    { field: 'active', label: t('catalogue.status'), format: (v) => (v ? t('catalogue.active') : t('catalogue.inactive')) },
    { field: 'createdAt', label: t('catalogue.createdAt'), format: (v) => showDateTime(String(v), lang) },
  ]
}
