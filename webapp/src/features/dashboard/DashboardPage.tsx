import { lazy, Suspense, useState } from 'react'
import { useTranslation } from 'react-i18next'
import Box from '@mui/material/Box'
import FormControlLabel from '@mui/material/FormControlLabel'
import LinearProgress from '@mui/material/LinearProgress'
import Paper from '@mui/material/Paper'
import Skeleton from '@mui/material/Skeleton'
import Stack from '@mui/material/Stack'
import Switch from '@mui/material/Switch'
import ToggleButton from '@mui/material/ToggleButton'
import ToggleButtonGroup from '@mui/material/ToggleButtonGroup'
import Typography from '@mui/material/Typography'
import Button from '@mui/material/Button'
import { Link } from 'react-router'
import EmptyState from '../../components/EmptyState'
import Spinner from '../../components/Spinner'
import { errorText } from '../../components/errorText'
import { formatNumber } from '../../lib/format'
import { useCountUp } from '../../lib/useCountUp'
import { isRouteAllowed, rolesRequestOf } from '../../lib/permissions'
import { useDashboardQuery, useRolesByIdQuery, type BatchUsage } from '../../store/generated/bemteviApi'
import { useAppSelector } from '../../store/hooks'
import { MAX_PERIOD_DAYS, periodOf, PRESETS, todayInSaoPaulo, type Period, type PeriodChoice } from './chartData'

// The charts library loads after the figures: they show at once, the charts a moment later.
const DashboardCharts = lazy(() => import('./DashboardCharts'))
const PeriodDates = lazy(() => import('./PeriodDates'))

const SUBTREE_ROLES = new Set(['owner', 'super-admin'])

export default function DashboardPage() {
  const { t, i18n } = useTranslation()
  const lang = i18n.language
  const num = (n: number | null) => (n === null ? '' : formatNumber(n, lang))
  const position = useAppSelector((s) => s.session.lastPosition)
  const user = useAppSelector((s) => s.auth.authUser)
  const role = user?.role ?? ''
  // The menu's own answer (cached): the empty state offers only the screens this user may open.
  const roles = useRolesByIdQuery(rolesRequestOf(user), { skip: !user })
  const may = (route: string) => isRouteAllowed(route, roles.data?.data.roles)
  const seesBelow = SUBTREE_ROLES.has(role)
  const [choice, setChoice] = useState<PeriodChoice>(30)
  const [custom, setCustom] = useState<Partial<Period>>({})
  const [subtree, setSubtree] = useState(false)
  const period = periodOf(choice, todayInSaoPaulo(), custom)
  const chosen = typeof period === 'string' ? null : period

  const summary = useDashboardQuery({ position }, { refetchOnMountOrArgChange: true })
  const data = summary.data?.data

  if (summary.isLoading) return <Spinner />
  if (summary.isError || !data)
    return (
      <div className="alert alert-error" role="alert">
        {errorText(summary.error, t, (k) => i18n.exists(k))}
      </div>
    )

  const unit = data.credits.unit ?? { used: 0, limit: 0 }
  const usage = (kind: BatchUsage['kind']) =>
    data.batches.find((b) => b.kind === kind) ?? { kind, batches: 0, records: 0, done: 0, credits: 0 }
  const batches = usage('batch')
  const enrichments = usage('manual')
  const nothingYet = data.consultationsTotal === 0 && batches.batches === 0 && enrichments.batches === 0
  const files = (u: BatchUsage) => t('dashboard.filesCount', { count: u.batches, n: num(u.batches) })
  const records = (u: BatchUsage) =>
    t('dashboard.recordsDone', { count: u.done, done: num(u.done), records: num(u.records), credits: num(u.credits) })

  return (
    <Stack spacing={2} className="page dashboard" sx={{ minWidth: 0 }}>
      <Typography variant="h5" component="h1" sx={{ fontWeight: 700 }}>
        {t('dashboard.title')}
      </Typography>

      <Box sx={{ display: 'grid', gap: 2, gridTemplateColumns: 'repeat(auto-fit, minmax(150px, 1fr))' }}>
        <CountingStat label={t('dashboard.total')} target={data.consultationsTotal} testId="dashboard-total" />
        <CountingStat label={t('dashboard.today')} target={data.consultationsToday} testId="dashboard-today" />
        <Stat label={t('dashboard.batches')} value={files(batches)} detail={records(batches)} testId="dashboard-batches" />
        <Stat
          label={t('dashboard.enrichments')}
          value={files(enrichments)}
          detail={records(enrichments)}
          testId="dashboard-enrichments"
        />
        <Stat
          label={t('dashboard.unitCredits')}
          // Without a limit, "1 of Unlimited" read oddly: the figure is what was used.
          value={
            unit.limit === null
              ? t('dashboard.unlimited')
              : t('dashboard.usedOfLimit', { used: num(unit.used), limit: num(unit.limit) })
          }
          detail={unit.limit === null ? t('dashboard.usedCount', { count: unit.used, n: num(unit.used) }) : undefined}
          testId="dashboard-unit-credits"
          meter={unit.limit !== null && unit.limit > 0 ? Math.min(100, (unit.used / unit.limit) * 100) : undefined}
        />
      </Box>

      {nothingYet && (
        <Paper variant="outlined">
          <EmptyState
            text={t('dashboard.nothingYet')}
            testId="dashboard-empty"
            action={
              <Stack direction="row" sx={{ gap: 1, flexWrap: 'wrap', justifyContent: 'center' }}>
                {may('normal-query') && (
                  <Button variant="contained" component={Link} to="/normal-query" data-testid="dashboard-first-query">
                    {t('dashboard.runQuery')}
                  </Button>
                )}
                {may('batch-query') && (
                  <Button variant="outlined" component={Link} to="/batch-query" data-testid="dashboard-first-batch">
                    {t('dashboard.sendBatch')}
                  </Button>
                )}
              </Stack>
            }
          />
        </Paper>
      )}

      <Paper variant="outlined" sx={{ p: { xs: 1.5, sm: 2 } }} data-testid="dashboard-period">
        <Stack direction={{ xs: 'column', md: 'row' }} spacing={2} sx={{ alignItems: { md: 'center' } }}>
          <ToggleButtonGroup
            exclusive
            size="small"
            color="primary"
            value={choice}
            onChange={(_e, value: PeriodChoice | null) => value !== null && setChoice(value)}
            aria-label={t('dashboard.period.label')}
            sx={{ flexWrap: 'wrap' }}
          >
            {PRESETS.map((days) => (
              <ToggleButton key={days} value={days} data-testid={`period-${days}`}>
                {t('dashboard.period.days', { count: days })}
              </ToggleButton>
            ))}
            <ToggleButton value="custom" data-testid="period-custom">
              {t('dashboard.period.custom')}
            </ToggleButton>
          </ToggleButtonGroup>
          {choice === 'custom' && (
            <Suspense fallback={<Skeleton variant="rounded" height={40} sx={{ flex: 1, maxWidth: { md: 420 } }} />}>
              <PeriodDates value={custom} onChange={setCustom} />
            </Suspense>
          )}
          {seesBelow && (
            <FormControlLabel
              sx={{ ml: { md: 'auto' } }}
              control={<Switch checked={subtree} onChange={(e) => setSubtree(e.target.checked)} slotProps={{ input: { 'aria-describedby': 'scope-hint' } }} data-testid="scope-subtree" />}
              label={t('dashboard.scope.label')}
            />
          )}
        </Stack>
        {(period === 'backwards' || period === 'tooLong') && (
          <Typography color="error" variant="body2" role="alert" sx={{ mt: 1 }} data-testid="period-problem">
            {t(`dashboard.period.${period}`, { days: MAX_PERIOD_DAYS })}
          </Typography>
        )}
        {seesBelow && (
          <Typography id="scope-hint" variant="caption" color="text.secondary" sx={{ display: 'block', mt: 0.5 }}>
            {t('dashboard.scope.hint')}
          </Typography>
        )}
      </Paper>

      <Suspense fallback={<Skeleton variant="rounded" height={300} />}>
        <DashboardCharts
          period={chosen}
          problem={typeof period === 'string' ? period : null}
          subtree={seesBelow && subtree}
          seesBelow={seesBelow}
          offersQuery={may('normal-query') && !nothingYet}
        />
      </Suspense>
    </Stack>
  )
}

/** A figure that counts up to its value (and moves to a new one while on screen); `data-target` is the value. */
function CountingStat({ label, target, testId }: { label: string; target: number; testId: string }) {
  const { i18n } = useTranslation()
  const shown = useCountUp(target)
  return <Stat label={label} value={formatNumber(shown, i18n.language)} testId={testId} target={target} />
}

function Stat({
  label,
  value,
  testId,
  meter,
  detail,
  target,
}: {
  label: string
  value: string
  testId: string
  /** The figure's value, when what is shown counts up to it. */
  target?: number
  meter?: number
  /** A line under the figure (what it is made of). */
  detail?: string
}) {
  return (
    <Paper variant="outlined" sx={{ p: 2, display: 'flex', flexDirection: 'column', gap: 0.5 }}>
      <Typography variant="body2" color="text.secondary">
        {label}
      </Typography>
      <Typography component="strong" sx={{ fontSize: '1.6rem', fontWeight: 700, lineHeight: 1.2 }} data-testid={testId} data-target={target}>
        {value}
      </Typography>
      {detail && (
        <Typography variant="caption" color="text.secondary" data-testid={`${testId}-detail`}>
          {detail}
        </Typography>
      )}
      {meter !== undefined && <LinearProgress variant="determinate" value={meter} aria-hidden="true" sx={{ height: 6, borderRadius: 3 }} />}
    </Paper>
  )
}
