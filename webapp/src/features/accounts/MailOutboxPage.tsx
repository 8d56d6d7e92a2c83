import { useMemo, useState } from 'react'
import { useTranslation } from 'react-i18next'
import Button from '@mui/material/Button'
import Chip, { type ChipProps } from '@mui/material/Chip'
import Paper from '@mui/material/Paper'
import Typography from '@mui/material/Typography'
import type { GridColDef } from '@mui/x-data-grid'
import ListPage from '../../components/ListPage'
import { useServerSorting } from '../../components/useServerSorting'
import { errorText } from '../../components/errorText'
import type { CsvColumn } from '../../lib/csv'
import { showDateTime } from '../../lib/format'
import { useOutboxQuery, type OutboxMail } from '../../store/generated/bemteviApi'
import './accounts.css'

const PER_PAGE = 20

const STATUS_COLOR: Record<string, ChipProps['color']> = { kept: 'success', sent: 'info', failed: 'error' }

/** The super-admin's mail outbox: what the system sent, kept (no SMTP) or failed to send. */
export default function MailOutboxPage() {
  const { t, i18n } = useTranslation()
  const lang = i18n.language
  const [page, setPage] = useState(1)
  const { order, sorting } = useServerSorting(['time', 'to', 'subject', 'reason', 'status'], () => setPage(1))
  const [open, setOpen] = useState<OutboxMail | null>(null)
  const { data, error, isError, isFetching, refetch } = useOutboxQuery({ page, perPage: PER_PAGE, order }, { pollingInterval: 5000 })

  const columns = useMemo<GridColDef<OutboxMail>[]>(() => {
    const reason = (r: string) => (i18n.exists(`accounts.outbox.reasons.${r}`) ? t(`accounts.outbox.reasons.${r}`) : r)
    return [
      { field: 'time', headerName: t('accounts.outbox.time'), minWidth: 150, valueFormatter: (v: string) => showDateTime(v, lang) },
      { field: 'to', headerName: t('accounts.outbox.to'), flex: 1, minWidth: 180 },
      { field: 'subject', headerName: t('accounts.outbox.subject'), flex: 1.5, minWidth: 200 },
      { field: 'reason', headerName: t('accounts.outbox.reason'), minWidth: 140, valueGetter: (_v, row) => reason(row.reason) },
      {
        field: 'status',
        headerName: t('accounts.outbox.status'),
        minWidth: 110,
        renderCell: ({ row }) => (
          <Chip
            size="small"
            variant="outlined"
            color={STATUS_COLOR[row.status] ?? 'default'}
            label={t(`accounts.outbox.statuses.${row.status}`)}
            title={row.lastError ?? undefined}
          />
        ),
      },
      {
        field: 'open',
        headerName: '',
        sortable: false,
        minWidth: 100,
        renderCell: ({ row }) => (
          <Button size="small" variant="outlined" onClick={() => setOpen((o) => (o?.id === row.id ? null : row))} data-testid="outbox-open">
            {open?.id === row.id ? t('accounts.outbox.close') : t('accounts.outbox.open')}
          </Button>
        ),
      },
    ]
  }, [t, i18n, lang, open])

  const csvColumns: CsvColumn<OutboxMail>[] = [
    { field: 'time', label: t('accounts.outbox.time'), format: (v) => showDateTime(String(v), lang) },
    { field: 'to', label: t('accounts.outbox.to') },
    { field: 'subject', label: t('accounts.outbox.subject') },
    { field: 'reason', label: t('accounts.outbox.reason') },
    { field: 'status', label: t('accounts.outbox.status'), format: (v) => t(`accounts.outbox.statuses.${String(v)}`) },
  ]

  return (
    <div data-testid="mail-outbox">
      <ListPage<OutboxMail>
        title={t('accounts.outbox.title')}
        intro={t('accounts.outbox.text')}
        columns={columns}
        rows={data?.data}
        loading={isFetching && !data}
        error={isError ? errorText(error, t, (k) => i18n.exists(k)) : null}
        onRetry={() => void refetch()}
        emptyText={t('accounts.outbox.empty')}
        paging={{ total: data?.total ?? 0, page, pageSize: PER_PAGE, onPage: setPage }}
        sorting={sorting}
        csv={{ base: 'caixa_de_saida', columns: csvColumns }}
        narrowHidden={['reason', 'time', 'to']}
        testId="outbox-table"
        rowTestId="outbox-row"
      >
        {open && (
          <Paper variant="outlined" role="region" aria-label={open.subject} data-testid="outbox-message" sx={{ p: 2 }}>
            <Typography variant="h6" component="h2">
              {open.subject}
            </Typography>
            <Typography color="text.secondary" sx={{ mb: 1 }}>
              {t('accounts.outbox.to')}: {open.to}
            </Typography>
            {open.lastError && <p className="field-error">{t('accounts.outbox.error', { error: open.lastError })}</p>}
            <pre className="outbox-message">{open.text ?? t('accounts.outbox.hidden')}</pre>
          </Paper>
        )}
      </ListPage>
    </div>
  )
}
