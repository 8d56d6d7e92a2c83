import { useMemo, useState } from 'react'
import { useTranslation } from 'react-i18next'
import { Link } from 'react-router'
import Box from '@mui/material/Box'
import Button from '@mui/material/Button'
import Chip from '@mui/material/Chip'
import type { GridColDef } from '@mui/x-data-grid'
import ListPage from '../../components/ListPage'
import { errorText } from '../../components/errorText'
import type { CsvColumn } from '../../lib/csv'
import { formatNumber, formatTime } from '../../lib/format'
import { useAppSelector } from '../../store/hooks'
import { Available, UsedOfLimit } from './FiguresCells'
import GrantForm from './GrantForm'
import { useBalancesQuery, type CategoryFigures, type GroupBalances } from '../../store/generated/bemteviApi'

/** Units a stopped server's leases hold (cluster mode): reserved until the ledger settles them, not spent. */
export function HeldByStoppedServer({ figures }: { figures: CategoryFigures }) {
  const { t, i18n } = useTranslation()
  const held = figures.heldByStoppedServer ?? 0
  if (held <= 0 || !figures.heldUntil) return null
  const time = formatTime(figures.heldUntil, i18n.language)
  return (
    <span className="muted small" data-testid={`held-${figures.category}`} style={{ display: 'block' }}>
      {t('credits.heldByStoppedServer', { count: held, amount: formatNumber(held, i18n.language), time })}
    </span>
  )
}

function CategoryCard({ figures }: { figures: CategoryFigures }) {
  const { t, i18n } = useTranslation()
  const num = (n: number) => formatNumber(n, i18n.language)
  const spent = figures.used + figures.reserved + figures.granted
  return (
    <div className="card stat" data-testid={`balance-${figures.category}`}>
      <span className="stat-label">{t(`credits.categories.${figures.category}`)}</span>
      <strong className="stat-value">
        <Available figures={figures} />
      </strong>
      <span className="muted small">{t('credits.available')}</span>
      {!figures.unlimited && (figures.limit ?? 0) > 0 && (
        <div className="meter" aria-hidden="true">
          <span style={{ width: `${Math.min(100, (spent / (figures.limit ?? 1)) * 100)}%` }} />
        </div>
      )}
      <dl className="figures">
        <dt>{t('credits.used')}</dt>
        <dd>
          <UsedOfLimit figures={figures} />
        </dd>
        <dt>{t('credits.reserved')}</dt>
        <dd>
          {num(figures.reserved)}
          <HeldByStoppedServer figures={figures} />
        </dd>
        <dt>{t('credits.granted')}</dt>
        <dd>{num(figures.granted)}</dd>
      </dl>
    </div>
  )
}

/** A child group's row: its name and, per category, what it used of what it may use. */
type ChildRow = GroupBalances

export default function BalancesPage() {
  const { t, i18n } = useTranslation()
  const lang = i18n.language
  const position = useAppSelector((s) => s.session.lastPosition)
  const balances = useBalancesQuery({ position }, { refetchOnMountOrArgChange: true })
  const { error, isError, isFetching, refetch } = balances
  const data = balances.data?.data
  const [granting, setGranting] = useState<string | null>(null)
  const categories = useMemo(() => (data?.group.categories ?? []).map((f) => f.category), [data])

  const columns = useMemo<GridColDef<ChildRow>[]>(
    () => [
      {
        field: 'name',
        headerName: t('credits.group'),
        flex: 1.5,
        minWidth: 160,
        renderCell: ({ row }) => (
          <Box sx={{ display: 'flex', gap: 1, alignItems: 'center', flexWrap: 'wrap' }}>
            {row.name}
            {row.active === false && <Chip size="small" label={t('credits.inactive')} />}
          </Box>
        ),
      },
      ...categories.map((category): GridColDef<ChildRow> => ({
        field: `category-${category}`,
        headerName: t(`credits.categories.${category}`),
        flex: 1,
        minWidth: 150,
        sortable: false,
        renderCell: ({ row }) => {
          const figures = row.categories.find((f) => f.category === category)
          return figures ? <UsedOfLimit figures={figures} /> : '-'
        },
      })),
      {
        field: 'actions',
        headerName: t('credits.actions'),
        sortable: false,
        minWidth: 170,
        renderCell: ({ row }) => (
          <Button size="small" variant="outlined" onClick={() => setGranting(row.id)} data-testid="grant-open">
            {t('credits.grant.open')}
          </Button>
        ),
      },
    ],
    [t, categories],
  )

  const figuresText = (row: GroupBalances, category: string) => {
    const f = row.categories.find((c) => c.category === category)
    if (!f) return ''
    return f.unlimited
      ? t('credits.usedUnlimited', { used: formatNumber(f.used, lang) })
      : t('credits.usedOfLimit', { used: formatNumber(f.used, lang), limit: formatNumber(f.limit ?? 0, lang) })
  }
  const csvColumns: CsvColumn<ChildRow>[] = [
    { field: 'name', label: t('credits.group') },
    ...categories.map((category) => ({
      field: 'categories' as const,
      label: t(`credits.categories.${category}`),
      format: (_v: unknown, row: ChildRow) => figuresText(row, category),
    })),
  ]

  const child = data?.children.find((c) => c.id === granting)
  return (
    <ListPage<ChildRow>
      title={t('credits.balancesTitle')}
      actions={
        <Button variant="outlined" component={Link} to="/balance-history" data-testid="history-link">
          {t('credits.historyLink')}
        </Button>
      }
      intro={data ? t('credits.balancesIntro', { name: data.group.name }) : undefined}
      heading={t('credits.childrenTitle')}
      columns={columns}
      rows={data?.children}
      loading={isFetching && !data}
      error={isError ? errorText(error, t, (k) => i18n.exists(k)) : null}
      onRetry={() => void refetch()}
      emptyText={t('credits.noChildren')}
      // Every role with this screen may register customers: the empty list leads there.
      emptyAction={
        <Button variant="outlined" component={Link} to="/add-new-customer/setup" data-testid="balances-add-customer">
          {t('customers.add')}
        </Button>
      }
      csv={{ base: 'saldos', columns: csvColumns }}
      // On a phone: the group, the first category and the grant button (the cards above have every category).
      narrowHidden={categories.slice(1).map((c) => `category-${c}`)}
      testId="balances-children"
      rowTestId="balance-child"
    >
      {data && (
        <div className="stat-grid">
          {data.group.categories.map((f) => (
            <CategoryCard key={f.category} figures={f} />
          ))}
        </div>
      )}
      {child && <GrantForm key={child.id} child={child} onDone={() => setGranting(null)} />}
    </ListPage>
  )
}
