import type { ConsumptionDay } from '../../store/generated/bemteviApi'
import { CATEGORIES, type CategoryName } from './categories'

/** The longest run of days drawn one bar each; a longer answer is drawn as it came (days with use). */
const MAX_FILLED_DAYS = 366

function addDays(day: string, days: number): string {
  const [y, m, d] = day.split('-').map(Number)
  return new Date(Date.UTC(y, m - 1, d + days)).toISOString().slice(0, 10)
}

const nextDay = (day: string) => addDays(day, 1)

/**
 * The days the consumption endpoint answers for: each end the filter's, else the endpoint's default
 * (from 29 days before today, to today, in São Paulo).
 */
export function consumptionPeriod(filters: { from?: string | null; to?: string | null }, today: string): { from: string; to: string } {
  return { from: filters.from ?? addDays(today, -29), to: filters.to ?? today }
}

export type ConsumptionSeries = {
  /** Every day from the first to the last consumption (no gaps), oldest first. */
  days: string[]
  /** One stack part per category that consumed anything, in the screens' category order. */
  series: { category: CategoryName; data: number[] }[]
  total: number
}

/**
 * Credits settled per day and category (the API lists only days with use) as stacked bar series,
 * over every day of `period` (the screen's filter, or the API's default of the last 30 days) or,
 * without one, from the first to the last day with use.
 */
export function consumptionSeries(rows: ConsumptionDay[], period: { from?: string; to?: string } = {}): ConsumptionSeries {
  if (rows.length === 0) return { days: [], series: [], total: 0 }
  const byDay = new Map<string, Partial<Record<CategoryName, number>>>()
  for (const r of rows) byDay.set(r.day, { ...byDay.get(r.day), [r.category]: (byDay.get(r.day)?.[r.category] ?? 0) + r.credits })
  const known = [...byDay.keys()].sort()
  const first = period.from && period.from < known[0] ? period.from : known[0]
  const last = period.to && period.to > known[known.length - 1] ? period.to : known[known.length - 1]
  const days: string[] = []
  for (let day = first; day <= last && days.length <= MAX_FILLED_DAYS; day = nextDay(day)) days.push(day)
  const axis = days.length > MAX_FILLED_DAYS ? known : days
  const series = CATEGORIES.filter((c) => rows.some((r) => r.category === c && r.credits !== 0)).map((category) => ({
    category,
    data: axis.map((day) => byDay.get(day)?.[category] ?? 0),
  }))
  return { days: axis, series, total: rows.reduce((sum, r) => sum + r.credits, 0) }
}
