import type { ReportRow } from '../../store/generated/bemteviApi'

export const PRESETS = ['today', 'yesterday', 'last7Days', 'last30Days', 'thisMonth', 'lastMonth', 'custom'] as const
export type Preset = (typeof PRESETS)[number]
export const INTERVALS = ['day', 'week', 'month'] as const
export type Interval = (typeof INTERVALS)[number]
export const DIMENSIONS = ['category', 'queryType', 'supplier', 'user', 'channel', 'found'] as const
export type Dimension = (typeof DIMENSIONS)[number]
/** Dimensions whose keys are fixed words the screen translates (the others are names or catalogue keys). */
export const TRANSLATED: ReadonlySet<Dimension> = new Set(['category', 'channel', 'found'])

export interface ChartSeries {
  periods: string[]
  series: { key: string; data: number[] }[]
}

/**
 * The rows (one per period and key) as a stacked chart: every period of the answer on the axis, in order,
 * one series per key in the order the API ranks them (busiest first), zero where a key has no row.
 */
export function chartSeries(rows: ReportRow[], keys: string[]): ChartSeries {
  const periods = [...new Set(rows.map((r) => r.period))].sort()
  const at = new Map(periods.map((p, i) => [p, i]))
  const series = keys.map((key) => ({ key, data: periods.map(() => 0) }))
  const index = new Map(keys.map((k, i) => [k, i]))
  for (const row of rows) {
    const s = index.get(row.key)
    const p = at.get(row.period)
    if (s !== undefined && p !== undefined) series[s].data[p] += row.consultations
  }
  return { periods, series }
}
