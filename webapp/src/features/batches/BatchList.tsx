import { useCallback, useMemo, useState, type ReactNode } from 'react'
import { useTranslation } from 'react-i18next'
import Button from '@mui/material/Button'
import Chip from '@mui/material/Chip'
import FormControlLabel from '@mui/material/FormControlLabel'
import MenuItem from '@mui/material/MenuItem'
import Stack from '@mui/material/Stack'
import Switch from '@mui/material/Switch'
import TextField from '@mui/material/TextField'
import Tooltip from '@mui/material/Tooltip'
import Typography from '@mui/material/Typography'
import useMediaQuery from '@mui/material/useMediaQuery'
import { useTheme } from '@mui/material/styles'
import type { GridColDef } from '@mui/x-data-grid'
import { textCell } from '../../components/textCell'
import ListPage from '../../components/ListPage'
import { useConfirm, useNotify } from '../../components/feedback'
import { downloadFile } from '../../lib/download'
import { formatNumber, showDateTime } from '../../lib/format'
import { useAppSelector } from '../../store/hooks'
import {
  batchUrls,
  useCancelBatchMutation,
  useChangeBatchStatusMutation,
  useDeleteBatchMutation,
  useListBatchesQuery,
  type BatchKind,
  type BatchRow,
  type BatchStatus,
} from './api'
import BatchProgress from './BatchProgress'
import { batchErrorText } from './errors'
import { batchMessage, isRunning, statusColor } from './rules'

const PAGE_SIZE = 20
const STATUSES: BatchStatus[] = ['waiting', 'processing', 'available', 'error', 'canceled']
/** While a batch runs the list refreshes itself this often (the bar itself is live). */
const REFRESH_MS = 5000

/** The batches of a kind as a list: status chips, live progress, downloads, cancel and delete. */
export default function BatchList({
  kind,
  title,
  intro,
  actions,
  top,
  subtreeChoice = false,
  emptyAction,
}: {
  kind: BatchKind
  title: ReactNode
  intro?: ReactNode
  actions?: ReactNode
  top?: ReactNode
  subtreeChoice?: boolean
  /** Under the text of a kind with no batch yet: the way to send the first. */
  emptyAction?: ReactNode
}) {
  const { t, i18n } = useTranslation()
  const lang = i18n.language
  const exists = useCallback((k: string) => i18n.exists(k), [i18n])
  const me = useAppSelector((s) => s.auth.authUser)
  const token = useAppSelector((s) => s.auth.authToken)
  const position = useAppSelector((s) => s.session.lastPosition)
  const [page, setPage] = useState(1)
  const [status, setStatus] = useState<BatchStatus | 'all'>('all')
  // On a phone the status chip sits above the progress (one column less), so the downloads keep their width.
  const narrow = useMediaQuery(useTheme().breakpoints.down('sm'))
  const superAdmin = me?.role === 'super-admin'
  const owner = me?.role === 'owner'
  // Owners and super-admins see their customers' enrichments too, unless they switch them off.
  const [subtree, setSubtree] = useState(subtreeChoice && (owner || superAdmin))
  const [polling, setPolling] = useState(false)
  const { data, error, isError, isFetching, refetch } = useListBatchesQuery(
    { page, perPage: PAGE_SIZE, kind, status: status === 'all' ? undefined : status, scope: subtree ? 'subtree' : 'own', order: '-createdAt', position },
    { refetchOnMountOrArgChange: true, pollingInterval: polling ? REFRESH_MS : 0 },
  )
  const anyRunning = (data?.data ?? []).some((r) => isRunning(r.status))
  if (anyRunning !== polling) setPolling(anyRunning)
  const confirm = useConfirm()
  const notify = useNotify()
  const [cancel] = useCancelBatchMutation()
  const [remove] = useDeleteBatchMutation()
  const [changeStatus] = useChangeBatchStatusMutation()

  const columns = useMemo<GridColDef<BatchRow>[]>(() => {
    async function download(url: string, name: string) {
      try {
        await downloadFile(url, token, name)
      } catch {
        notify({ type: 'negative', message: t('batches.errors.download') })
      }
    }
    // Each action's question and outcome; activate and inactivate are the status route's two answers.
    const words = {
      cancel: ['batches.list.confirmCancel', 'batches.list.canceled'],
      delete: ['batches.list.confirmDelete', 'batches.list.deleted'],
      activate: ['batches.list.confirmActivate', 'batches.list.activated'],
      inactivate: ['batches.list.confirmInactivate', 'batches.list.inactivated'],
    } as const
    async function act(row: BatchRow, action: keyof typeof words) {
      const ok = await confirm({ message: t(words[action][0], { name: row.fileName }), variant: 'yesNo' })
      if (!ok) return
      const batchId = row.id
      const result = await (action === 'cancel'
        ? cancel({ batchId })
        : action === 'delete'
          ? remove({ batchId })
          : changeStatus({ batchId, batchActiveRequest: { active: action === 'activate' } }))
      if ('error' in result) notify({ type: 'negative', message: batchErrorText(result.error, t, exists) })
      else notify({ type: 'positive', message: t(words[action][1]) })
    }
    function statusCell(row: BatchRow) {
      const status = <Chip size="small" color={statusColor(row.status)} label={t(`batches.status.${row.status}`)} data-testid="batch-status" />
      // An inactivated enrichment says so beside its status (its return file is not offered).
      const chip =
        row.active === false ? (
          <Stack direction="row" sx={{ gap: 0.5 }}>
            {status}
            <Chip size="small" variant="outlined" label={t('batches.list.inactive')} data-testid="batch-inactive" />
          </Stack>
        ) : (
          status
        )
      const message = batchMessage(row, t, exists)
      if (!message) return chip
      return (
        <Tooltip title={message}>
          <Stack sx={{ py: 0.5, alignItems: 'flex-start', gap: 0.25 }}>
            {chip}
            <Typography variant="caption" color="text.secondary" sx={{ lineHeight: 1.2, whiteSpace: 'normal' }} data-testid="batch-message">
              {message}
            </Typography>
          </Stack>
        </Tooltip>
      )
    }
    return [
      { field: 'createdAt', headerName: t('batches.list.createdAt'), minWidth: 130, valueFormatter: (v: string) => showDateTime(v, lang) },
      ...(kind === 'manual' ? [{ field: 'groupName', headerName: t('batches.list.customer'), flex: 1, minWidth: 130, renderCell: textCell<BatchRow>(2) } as GridColDef<BatchRow>] : []),
      { field: 'fileName', headerName: t('batches.list.file'), flex: 1.2, minWidth: 120, renderCell: textCell<BatchRow>(1) },
      { field: 'layoutName', headerName: t('batches.list.layout'), flex: 1, minWidth: 100, renderCell: textCell<BatchRow>(1) },
      { field: 'userName', headerName: t('batches.list.user'), flex: 1, minWidth: 100, renderCell: textCell<BatchRow>(1) },
      {
        field: 'status',
        headerName: t('batches.list.status'),
        minWidth: 120,
        renderCell: ({ row }) => statusCell(row),
      },
      {
        field: 'done',
        headerName: narrow ? t('batches.list.status') : t('batches.list.progress'),
        flex: 1.4,
        minWidth: 170,
        sortable: false,
        renderCell: ({ row }) =>
          narrow ? (
            <Stack sx={{ py: 0.5, gap: 0.5, width: '100%', alignItems: 'flex-start' }}>
              {statusCell(row)}
              <BatchProgress row={row} onOver={() => void refetch()} />
            </Stack>
          ) : (
            <BatchProgress row={row} onOver={() => void refetch()} />
          ),
      },
      {
        field: 'creditsCharged',
        headerName: t('batches.list.charged'),
        minWidth: 90,
        type: 'number',
        valueFormatter: (v: number) => formatNumber(v ?? 0, lang),
      },
      {
        field: 'actions',
        headerName: t('batches.list.actions'),
        sortable: false,
        minWidth: 130,
        renderCell: ({ row }) => {
          return (
            <Stack sx={{ gap: 0.75, py: 0.5, alignItems: 'flex-start' }}>
              <Button size="small" variant="outlined" onClick={() => void download(batchUrls.file(row.id), row.fileName)} data-testid="batch-download-sent">
                {t('batches.list.sent')}
              </Button>
              {row.status === 'available' && row.active !== false && (
                <Button
                  size="small"
                  variant="contained"
                  onClick={() => void download(batchUrls.returnFile(row.id), row.returnFileName ?? row.fileName)}
                  data-testid="batch-download-return"
                >
                  {t('batches.list.returned')}
                </Button>
              )}
              {row.canCancel && (
                <Button size="small" color="warning" onClick={() => void act(row, 'cancel')} data-testid="batch-cancel">
                  {t('batches.list.cancel')}
                </Button>
              )}
              {row.canToggle && (
                <Button
                  size="small"
                  onClick={() => void act(row, row.active === false ? 'activate' : 'inactivate')}
                  data-testid={row.active === false ? 'batch-activate' : 'batch-inactivate'}
                >
                  {t(row.active === false ? 'batches.list.activate' : 'batches.list.inactivate')}
                </Button>
              )}
              {row.canDelete && (
                <Button size="small" color="error" onClick={() => void act(row, 'delete')} data-testid="batch-delete">
                  {t('batches.list.delete')}
                </Button>
              )}
            </Stack>
          )
        },
      },
    ]
  }, [t, lang, kind, token, confirm, notify, cancel, remove, changeStatus, refetch, exists, narrow])

  return (
    <ListPage<BatchRow>
      title={title}
      intro={intro}
      actions={actions}
      filters={
        <>
          <TextField
            select
            label={t('batches.list.status')}
            value={status}
            onChange={(e) => {
              setStatus(e.target.value as BatchStatus | 'all')
              setPage(1)
            }}
            sx={{ minWidth: 180 }}
            data-testid="batch-status-filter"
          >
            <MenuItem value="all">{t('batches.list.allStatuses')}</MenuItem>
            {STATUSES.map((s) => (
              <MenuItem key={s} value={s}>
                {t(`batches.status.${s}`)}
              </MenuItem>
            ))}
          </TextField>
          {subtreeChoice && (owner || superAdmin) && (
            <FormControlLabel
              control={<Switch checked={subtree} onChange={(e) => setSubtree(e.target.checked)} />}
              label={t('batches.list.includeCustomers')}
            />
          )}
        </>
      }
      heading={t('batches.list.title')}
      columns={columns}
      rows={data?.data}
      loading={isFetching && !data}
      error={isError ? batchErrorText(error, t, exists) : null}
      onRetry={() => void refetch()}
      emptyText={status === 'all' ? t(kind === 'manual' ? 'batches.list.noneManual' : 'batches.list.noneBatch') : t('batches.list.empty')}
      emptyAction={status === 'all' ? emptyAction : undefined}
      paging={{ total: data?.total ?? 0, page, pageSize: PAGE_SIZE, onPage: setPage }}
      narrowHidden={['createdAt', 'layoutName', 'userName', 'creditsCharged', 'groupName', 'status']}
      testId="batch-table"
      rowTestId="batch-row"
      top={top}
    />
  )
}
