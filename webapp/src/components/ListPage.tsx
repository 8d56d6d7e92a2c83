import { useEffect, useMemo, useRef, useState, type ReactNode, type RefObject } from 'react'
import { useTranslation } from 'react-i18next'
import Alert from '@mui/material/Alert'
import Box from '@mui/material/Box'
import Button from '@mui/material/Button'
import Paper from '@mui/material/Paper'
import Stack from '@mui/material/Stack'
import Typography from '@mui/material/Typography'
import useMediaQuery from '@mui/material/useMediaQuery'
import { useTheme } from '@mui/material/styles'
import {
  DataGrid,
  type GridColDef,
  type GridColumnVisibilityModel,
  type GridPaginationModel,
  type GridRowIdGetter,
  type GridSortModel,
  type GridValidRowModel,
} from '@mui/x-data-grid'
import { exportCsv, type CsvColumn } from '../lib/csv'
import EmptyState from './EmptyState'
import { textCell } from './textCell'

/** Server paging: the total the API reports, the page on screen (from 1) and its size. */
export interface ServerPaging {
  total: number
  page: number
  pageSize: number
  onPage: (page: number) => void
}

/** CSV of the rows on screen (lib/csv.ts), or a download the page makes itself (a server export). */
export type ListCsv<Row> = { base: string; columns: CsvColumn<Row>[] } | { download: () => void | Promise<void>; busy?: boolean }

export interface ListPageProps<Row extends GridValidRowModel> {
  title: ReactNode
  /** Buttons beside the title (add, links). */
  actions?: ReactNode
  /** A line under the title. */
  intro?: ReactNode
  /** Filter fields; they wrap and take the full width on a phone. */
  filters?: ReactNode
  /** What sits between the filters and the list (an edit form, figures). */
  children?: ReactNode
  /** What sits above the filters (a form whose result the list shows, e.g. a batch upload). */
  top?: ReactNode
  /** Heading over the grid, inside its card. */
  heading?: ReactNode
  columns: GridColDef<Row>[]
  rows: Row[] | undefined
  getRowId?: GridRowIdGetter<Row>
  loading: boolean
  /** The error's text (already translated, e.g. components/errorText.ts); null when there is none. */
  error?: string | null
  onRetry?: () => void
  emptyText?: string
  /** Under the empty text: the action that fills the list (e.g. add the first one). */
  emptyAction?: ReactNode
  /** Without it the grid pages the rows it has (all of them are given). */
  paging?: ServerPaging
  /** Server-side sorting (`useServerSorting`): the API orders every page; only `fields` are sortable.
   * Without it the grid sorts the rows on screen. */
  sorting?: { model: GridSortModel; fields: string[]; onChange: (model: GridSortModel) => void }
  csv?: ListCsv<Row>
  /** Fields hidden under 600 px (the grid scrolls sideways inside its card for the rest). */
  narrowHidden?: string[]
  testId?: string
  rowTestId?: string
}

const CLIENT_PAGE_SIZES = [10, 25, 50]
/** A column's least width on a phone (px). */
const NARROW_MIN_WIDTH = 100

/** Whether a grid's columns run past its box (`scrolls`) and whether more of them lies to the right of what
 * shows (`more`): read from the grid's scroller as it scrolls and as its box or its content change size. */
function useSidewaysScroll(box: RefObject<HTMLDivElement | null>, deps: unknown[]) {
  const [state, setState] = useState({ scrolls: false, more: false })
  useEffect(() => {
    const scroller = box.current?.querySelector<HTMLElement>('.MuiDataGrid-virtualScroller')
    if (!scroller) return
    const read = () => {
      const hidden = scroller.scrollWidth - scroller.clientWidth
      const next = { scrolls: hidden > 1, more: hidden - scroller.scrollLeft > 1 }
      setState((s) => (s.scrolls === next.scrolls && s.more === next.more ? s : next))
    }
    read()
    // (jsdom and old browsers have no ResizeObserver: read once and on scroll.)
    const sizes = typeof ResizeObserver === 'undefined' ? null : new ResizeObserver(read)
    sizes?.observe(scroller)
    for (const child of scroller.children) sizes?.observe(child)
    scroller.addEventListener('scroll', read, { passive: true })
    return () => {
      sizes?.disconnect()
      scroller.removeEventListener('scroll', read)
    }
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, deps)
  return state
}

/**
 * The list pattern of the signed-in app: title and actions, filters, one MUI X Data Grid (server or
 * client paging, sortable columns), loading / error / empty states and CSV export. On a phone the
 * grid scrolls inside its card (the page never does), and says so: a line over it, a scrollbar that stays in
 * sight and a shade at the right edge while columns lie beyond it, so no column is cut unseen.
 */
export default function ListPage<Row extends GridValidRowModel>({
  title,
  actions,
  intro,
  filters,
  children,
  top,
  heading,
  columns,
  rows,
  getRowId,
  loading,
  error,
  onRetry,
  emptyText,
  emptyAction,
  paging,
  sorting,
  csv,
  narrowHidden = [],
  testId,
  rowTestId,
}: ListPageProps<Row>) {
  const { t } = useTranslation()
  const theme = useTheme()
  const narrow = useMediaQuery(theme.breakpoints.down('sm'))
  const [clientPage, setClientPage] = useState<GridPaginationModel>({ page: 0, pageSize: 25 })
  const hidden = narrowHidden.join(',')
  const visibility = useMemo<GridColumnVisibilityModel>(
    () => (narrow && hidden ? Object.fromEntries(hidden.split(',').map((field) => [field, false])) : {}),
    [narrow, hidden],
  )
  const list = rows ?? []
  // On a phone every column shares the width (texts wrap, buttons stack) instead of keeping its
  // desktop minimum; what still does not fit scrolls inside the card.
  const sortable = sorting?.fields.join(',')
  const shown = useMemo<GridColDef<Row>[]>(() => {
    const allowed = sortable === undefined ? null : new Set(sortable.split(','))
    const sorted = allowed ? columns.map((c) => (allowed.has(c.field) ? c : { ...c, sortable: false })) : columns
    // A text column's value never runs past its cell unseen: three lines at most, then an ellipsis and the
    // whole text on hover or a long press (components/CellText.tsx); columns that draw themselves keep that.
    const texts = sorted.map((c) => (c.renderCell || c.type === 'number' ? c : { ...c, renderCell: textCell<Row>() }))
    return narrow
      ? texts.map((c) => ({ ...c, flex: c.flex ?? 1, minWidth: Math.min(c.minWidth ?? NARROW_MIN_WIDTH, NARROW_MIN_WIDTH) }))
      : texts
  }, [narrow, columns, sortable])

  const showsGrid = !error && (loading || list.length > 0)
  const gridBox = useRef<HTMLDivElement>(null)
  const sideways = useSidewaysScroll(gridBox, [showsGrid, shown, list.length, narrow])

  let exportButton: ReactNode = null
  if (csv) {
    const run = 'download' in csv ? () => void csv.download() : () => exportCsv(list, csv.columns, csv.base)
    exportButton = (
      <Button
        variant="outlined"
        onClick={run}
        disabled={('busy' in csv && !!csv.busy) || (!('download' in csv) && list.length === 0)}
        data-testid="list-export"
      >
        {t('frame.list.exportCsv')}
      </Button>
    )
  }

  let body: ReactNode
  if (error) {
    body = (
      <Alert
        severity="error"
        role="alert"
        data-testid="list-error"
        action={
          onRetry && (
            <Button color="inherit" size="small" onClick={onRetry}>
              {t('frame.list.retry')}
            </Button>
          )
        }
      >
        {error}
      </Alert>
    )
  } else if (!loading && list.length === 0) {
    body = <EmptyState text={emptyText ?? t('frame.list.empty')} action={emptyAction} testId="list-empty" />
  } else {
    body = (
      <Box ref={gridBox} sx={{ width: '100%', minWidth: 0, position: 'relative' }} data-testid={testId}>
        {sideways.scrolls && (
          <Typography variant="caption" color="text.secondary" component="p" sx={{ mb: 0.5 }} data-testid="list-scroll-hint">
            {t('frame.list.scrollHint')} →
          </Typography>
        )}
        <DataGrid<Row>
          rows={list}
          columns={shown}
          getRowId={getRowId}
          loading={loading}
          autoHeight
          disableVirtualization
          disableRowSelectionOnClick
          disableColumnMenu={narrow}
          getRowHeight={() => 'auto'}
          columnVisibilityModel={visibility}
          {...(paging
            ? {
                paginationMode: 'server' as const,
                rowCount: paging.total,
                paginationModel: { page: paging.page - 1, pageSize: paging.pageSize },
                pageSizeOptions: [paging.pageSize],
                onPaginationModelChange: (m: GridPaginationModel) => paging.onPage(m.page + 1),
              }
            : {
                paginationModel: clientPage,
                pageSizeOptions: CLIENT_PAGE_SIZES,
                onPaginationModelChange: setClientPage,
              })}
          {...(sorting ? { sortingMode: 'server' as const, sortModel: sorting.model, onSortModelChange: sorting.onChange } : {})}
          hideFooter={!paging && list.length <= clientPage.pageSize}
          slotProps={{ row: { 'data-testid': rowTestId } }}
          sx={{
            border: 0,
            '& .MuiDataGrid-cell': { py: 1, display: 'flex', alignItems: 'center', whiteSpace: 'normal', overflowWrap: 'break-word' },
            ...(narrow && {
              fontSize: '0.8125rem',
              '& .MuiDataGrid-cell, & .MuiDataGrid-columnHeader': { px: 0.75 },
            }),
            '& .MuiDataGrid-columnHeaderTitle': { fontWeight: 600 },
            // A scrollbar that stays drawn (phones hide an overlay one until touched).
            '& .MuiDataGrid-virtualScroller': {
              scrollbarWidth: 'thin',
              scrollbarColor: `${theme.palette.text.secondary} transparent`,
            },
          }}
        />
        {sideways.more && (
          <Box
            aria-hidden
            data-testid="list-scroll-more"
            sx={{
              position: 'absolute',
              top: 0,
              right: 0,
              bottom: 0,
              width: 24,
              pointerEvents: 'none',
              background: `linear-gradient(to right, transparent, ${theme.palette.background.paper})`,
            }}
          />
        )}
      </Box>
    )
  }

  return (
    <Stack spacing={2} sx={{ minWidth: 0, '& .card, & .stat-grid, & .grant-form': { mb: 0 } }} className="list-page">
      <Stack direction="row" sx={{ flexWrap: 'wrap', alignItems: 'center', justifyContent: 'space-between', gap: 1 }}>
        <Typography variant="h5" component="h1" sx={{ fontWeight: 700 }}>
          {title}
        </Typography>
        {(actions || exportButton) && (
          <Stack direction="row" sx={{ flexWrap: 'wrap', gap: 1 }}>
            {actions}
            {exportButton}
          </Stack>
        )}
      </Stack>
      {intro && <Typography color="text.secondary">{intro}</Typography>}
      {top}
      {filters && (
        <Paper
          variant="outlined"
          component="section"
          aria-label={t('frame.list.filters')}
          sx={{
            p: 2,
            display: 'grid',
            gap: 2,
            alignItems: 'center',
            gridTemplateColumns: { xs: '1fr', sm: 'repeat(auto-fill, minmax(200px, 1fr))' },
          }}
        >
          {filters}
        </Paper>
      )}
      {children}
      <Paper variant="outlined" sx={{ p: { xs: 1, sm: 2 }, minWidth: 0, overflow: 'hidden' }}>
        {heading && (
          <Typography variant="h6" component="h2" sx={{ mb: 1 }}>
            {heading}
          </Typography>
        )}
        {body}
      </Paper>
    </Stack>
  )
}
