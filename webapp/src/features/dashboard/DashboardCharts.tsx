import { useTranslation } from 'react-i18next'
import { useQueryTypeName } from '../../lib/queryTypeName'
import { skipToken } from '@reduxjs/toolkit/query'
import Box from '@mui/material/Box'
import LinearProgress from '@mui/material/LinearProgress'
import Stack from '@mui/material/Stack'
import Typography from '@mui/material/Typography'
import { useTheme } from '@mui/material/styles'
import useMediaQuery from '@mui/material/useMediaQuery'
import { BarChart } from '@mui/x-charts/BarChart'
import { LineChart, lineClasses } from '@mui/x-charts/LineChart'
import { PieChart } from '@mui/x-charts/PieChart'
import ChartCard from '../../components/ChartCard'
import ChartsLanguage from '../../components/ChartsLanguage'
import { errorText } from '../../components/errorText'
import type { AnyError } from '../../lib/errors'
import { formatNumber, showDate } from '../../lib/format'
import { useDashboardTopConsumersQuery, useDashboardUsageQuery, type UsageShare } from '../../store/generated/bemteviApi'
import { useAppSelector } from '../../store/hooks'
import Button from '@mui/material/Button'
import { Link } from 'react-router'
import { balanceSeries, dayAxis, hasCredits, ranked, shortDay, slices, type Period, type PeriodProblem } from './chartData'

// Colours beside the brand's two for the third and fourth series (readable on white).
const EXTRA_COLORS = ['#31A3C9', '#E0A526', '#8E6CC4', '#D65F5F']

/** A subtitle's parts, the empty ones (no period chosen yet) left out. */
const joined = (...parts: string[]) => parts.filter(Boolean).join(' · ')

/**
 * The dashboard's charts (a chunk of their own with MUI X Charts, loaded after the figures above
 * them): consultations per day, per query type and per channel over the period, credits per
 * category now and, for owners, the groups below that consult most.
 */
export default function DashboardCharts({
  period,
  problem,
  subtree,
  seesBelow,
  offersQuery,
}: {
  period: Period | null
  problem: PeriodProblem | null
  subtree: boolean
  seesBelow: boolean
  /** Whether the empty chart offers a lookup: the user may run one, and the page does not already offer it. */
  offersQuery: boolean
}) {
  const { t, i18n } = useTranslation()
  const theme = useTheme()
  // On a phone a month's daily marks run into each other: the line alone, marks only for a week.
  const narrow = useMediaQuery(theme.breakpoints.down('sm'))
  const lang = i18n.language
  const num = (n: number | null) => (n === null ? '' : formatNumber(n, lang))
  const position = useAppSelector((s) => s.session.lastPosition)
  const chosen = period
  const usage = useDashboardUsageQuery(chosen ? { ...chosen, subtree, position } : skipToken)
  const top = useDashboardTopConsumersQuery(seesBelow && chosen ? { ...chosen, position } : skipToken)
  const failure = (query: { isError: boolean; error?: AnyError }) =>
    query.isError ? errorText(query.error, t, (k) => i18n.exists(k)) : null

  const colors = [theme.palette.primary.main, theme.palette.secondary.main, ...EXTRA_COLORS]
  // `data`, not `currentData`: while another period (or a newer position) is fetched, the charts on screen
  // stay until its answer comes, under a progress bar; the placeholder is only for a first answer.
  const usageData = usage.data?.data
  const usageLoading = !!chosen && usage.isFetching && !usage.data
  const usageRefreshing = !!chosen && usage.isFetching && !!usage.data
  const topLoading = !!chosen && top.isFetching && !top.data
  const topRefreshing = !!chosen && top.isFetching && !!top.data
  const typeName = useQueryTypeName()
  const channelName = (key: string) => t(`dashboard.channels.${key}`, { defaultValue: key })
  const days = usageData ? dayAxis(usageData.byDay) : null
  const balances = usageData ? balanceSeries(usageData.balances) : null
  const rangeText = (from: string, to: string) =>
    t('dashboard.period.range', { from: showDate(from, lang), to: showDate(to, lang) })
  // The period of the figures on screen: the one chosen, or the previous one until the chosen one answers.
  const periodText = !chosen ? '' : usageData ? rangeText(usageData.firstDay, usageData.lastDay) : rangeText(chosen.from, chosen.to)
  const consultationsText = (n: number) => t('dashboard.consultationsCount', { count: n, n: num(n) })
  const creditsText = (n: number) => t('dashboard.creditsCount', { count: n, n: num(n) })
  const pickText = problem === 'incomplete' || problem === null ? t('dashboard.period.pick') : t('dashboard.noData')

  const pie = (rows: UsageShare[], name: (key: string) => string, testId: string) => (
    <Box data-testid={`${testId}-chart`} sx={{ width: '100%' }}>
      <PieChart
        height={260}
        colors={colors}
        series={[
          {
            // The legend says each part's count: no label inside a slice to fight the brand's colours.
            data: slices(rows, (key, value) => `${name(key)} · ${num(value)}`),
            innerRadius: 48,
            outerRadius: 92,
            paddingAngle: 1,
            cornerRadius: 4,
            valueFormatter: (item) => consultationsText(item.value),
          },
        ]}
        slotProps={{ legend: { direction: 'horizontal', position: { vertical: 'bottom', horizontal: 'center' } } }}
      />
    </Box>
  )

  return (
    <ChartsLanguage>
      <Stack spacing={2} sx={{ minWidth: 0 }}>
        <ChartCard
          title={t('dashboard.byDay')}
          subtitle={
            chosen && usageData
              ? joined(periodText, consultationsText(usageData.consultations), creditsText(usageData.credits))
              : periodText
          }
          height={300}
          loading={usageLoading}
          refreshing={usageRefreshing}
          error={failure(usage)}
          onRetry={() => void usage.refetch()}
          empty={!chosen || !usageData || usageData.consultations === 0}
          emptyText={chosen ? t('dashboard.noConsultations') : pickText}
          emptyAction={
            chosen &&
            offersQuery && (
              <Button variant="contained" component={Link} to="/normal-query" data-testid="dashboard-run-query">
                {t('dashboard.runQuery')}
              </Button>
            )
          }
          testId="chart-by-day"
        >
          {() =>
            days && (
              <LineChart
                height={300}
                colors={colors}
                grid={{ horizontal: true }}
                xAxis={[
                  {
                    scaleType: 'point',
                    data: days.days,
                    label: t('dashboard.day'),
                    valueFormatter: (day: string, context) =>
                      context.location === 'tick' ? shortDay(day, lang) : showDate(day, lang),
                  },
                ]}
                yAxis={[{ label: t('dashboard.count'), tickMinStep: 1, valueFormatter: (n: number) => num(n), width: 56 }]}
                series={[
                  {
                    id: 'consultations',
                    data: days.consultations,
                    label: t('dashboard.consultations'),
                    area: true,
                    showMark: days.days.length <= (narrow ? 10 : 31),
                    valueFormatter: (n) => num(n),
                  },
                  {
                    id: 'credits',
                    data: days.credits,
                    label: t('dashboard.credits'),
                    showMark: days.days.length <= (narrow ? 10 : 31),
                    valueFormatter: (n) => num(n),
                  },
                ]}
                // Credits often equal consultations day by day: dashed and thicker, the line stays
                // visible on top of the consultations' line instead of hiding under it.
                sx={{
                  [`& .${lineClasses.area}`]: { fillOpacity: 0.18 },
                  [`& .${lineClasses.line}[data-series="credits"]`]: { strokeDasharray: '7 5', strokeWidth: 3 },
                }}
              />
            )
          }
        </ChartCard>

        <Box sx={{ display: 'grid', gap: 2, gridTemplateColumns: { xs: '1fr', md: '1fr 1fr' } }}>
          <ChartCard
            title={t('dashboard.byQueryType')}
            subtitle={periodText}
            height={260}
            loading={usageLoading}
            refreshing={usageRefreshing}
            error={failure(usage)}
            onRetry={() => void usage.refetch()}
            empty={!chosen || !usageData || usageData.byQueryType.length === 0}
            emptyText={chosen ? t('dashboard.noData') : pickText}
            testId="chart-by-type"
          >
            {() => usageData && pie(usageData.byQueryType, typeName, 'by-type')}
          </ChartCard>
          <ChartCard
            title={t('dashboard.byChannel')}
            subtitle={periodText}
            height={260}
            loading={usageLoading}
            refreshing={usageRefreshing}
            error={failure(usage)}
            onRetry={() => void usage.refetch()}
            empty={!chosen || !usageData || usageData.byChannel.length === 0}
            emptyText={chosen ? t('dashboard.noData') : pickText}
            testId="chart-by-channel"
          >
            {() => usageData && pie(usageData.byChannel, channelName, 'by-channel')}
          </ChartCard>
        </Box>

        <Box sx={{ display: 'grid', gap: 2, gridTemplateColumns: { xs: '1fr', lg: seesBelow ? '1fr 1fr' : '1fr' } }}>
          <ChartCard
            title={t('dashboard.balances')}
            subtitle={t('dashboard.balancesHint')}
            height={300}
            loading={usageLoading}
            refreshing={usageRefreshing}
            error={failure(usage)}
            onRetry={() => void usage.refetch()}
            empty={!usageData || !hasCredits(usageData.balances)}
            emptyText={t('dashboard.noCredits')}
            testId="chart-balances"
          >
            {() =>
              balances && (
                <>
                  <BarChart
                    height={260}
                    colors={colors}
                    layout="horizontal"
                    grid={{ vertical: true }}
                    yAxis={[
                      {
                        scaleType: 'band',
                        data: balances.categories,
                        valueFormatter: (c: string) => t(`dashboard.categories.${c}`),
                        categoryGapRatio: 0.35,
                        width: 'auto',
                      },
                    ]}
                    xAxis={[{ label: t('dashboard.credits'), valueFormatter: (n: number) => num(n) }]}
                    series={[
                      { data: balances.used, label: t('dashboard.used'), stack: 'credits', valueFormatter: num },
                      { data: balances.reserved, label: t('dashboard.reserved'), stack: 'credits', valueFormatter: num },
                      { data: balances.granted, label: t('dashboard.granted'), stack: 'credits', valueFormatter: num },
                      {
                        data: balances.available,
                        label: t('dashboard.available'),
                        stack: 'credits',
                        valueFormatter: (n) => (n === null ? t('dashboard.unlimited') : num(n)),
                      },
                    ]}
                  />
                  {balances.unlimited.length > 0 && (
                    <Typography variant="body2" color="text.secondary" data-testid="balances-unlimited">
                      {t('dashboard.unlimitedCategories', {
                        names: balances.unlimited.map((c) => t(`dashboard.categories.${c}`)).join(', '),
                      })}
                    </Typography>
                  )}
                </>
              )
            }
          </ChartCard>

          {seesBelow && (
            <ChartCard
              title={t('dashboard.topConsumers')}
              subtitle={joined(t('dashboard.topConsumersHint'), periodText)}
              height={200}
              loading={topLoading}
              refreshing={topRefreshing}
              error={failure(top)}
              onRetry={() => void top.refetch()}
              empty={!chosen || !top.data || top.data.data.groups.length === 0}
              emptyText={chosen ? t('dashboard.noConsumers') : pickText}
              testId="top-consumers"
            >
              {() =>
                top.data && (
                  <Stack component="ol" spacing={1.5} sx={{ listStyle: 'none', p: 0, m: 0, alignSelf: 'stretch' }}>
                    {ranked(top.data.data.groups).map((g) => (
                      <Box component="li" key={g.groupId} data-testid="top-consumer">
                        <Stack direction="row" spacing={1} sx={{ alignItems: 'baseline', minWidth: 0 }}>
                          <Typography sx={{ fontWeight: 700, minWidth: '2.2em' }} color="text.secondary">
                            {t('dashboard.rank', { rank: g.rank })}
                          </Typography>
                          <Box sx={{ flex: 1, minWidth: 0 }}>
                            <Typography sx={{ fontWeight: 600, overflowWrap: 'anywhere' }}>{g.name}</Typography>
                            {g.parentName && (
                              <Typography variant="caption" color="text.secondary">
                                {t('dashboard.under', { name: g.parentName })}
                              </Typography>
                            )}
                          </Box>
                          <Box sx={{ textAlign: 'right', whiteSpace: 'nowrap' }}>
                            <Typography sx={{ fontWeight: 700 }}>{num(g.consultations)}</Typography>
                            <Typography variant="caption" color="text.secondary">
                              {creditsText(g.credits)}
                            </Typography>
                          </Box>
                        </Stack>
                        <LinearProgress
                          variant="determinate"
                          value={g.share}
                          aria-label={`${g.name}: ${consultationsText(g.consultations)}`}
                          sx={{ mt: 0.5, height: 6, borderRadius: 3 }}
                        />
                      </Box>
                    ))}
                  </Stack>
                )
              }
            </ChartCard>
          )}
        </Box>
      </Stack>
    </ChartsLanguage>
  )
}
