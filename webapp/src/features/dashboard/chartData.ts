/** The dashboard's data shaping: periods, axes and series from the API's answers (no drawing here). */
import { formatDateBR } from '../../lib/format'
export { todayInSaoPaulo } from '../../lib/format'
import type { CategoryFigures, TopConsumer, UsageDay, UsageShare } from '../../store/generated/bemteviApi'

/** The period presets; `custom` takes two dates. */
export const PRESETS = [7, 30, 90] as const
export type PeriodChoice = (typeof PRESETS)[number] | 'custom'
/** The longest period the API answers (both ends included). */
export const MAX_PERIOD_DAYS = 366

export type Period = { from: string; to: string }
export type PeriodProblem = 'incomplete' | 'backwards' | 'tooLong'

function addDays(day: string, days: number): string {
  const [y, m, d] = day.split('-').map(Number)
  return new Date(Date.UTC(y, m - 1, d + days)).toISOString().slice(0, 10)
}

function daysBetween(from: string, to: string): number {
  return Math.round((Date.parse(`${to}T00:00:00Z`) - Date.parse(`${from}T00:00:00Z`)) / 86_400_000)
}

/** The days a choice covers, ending today for a preset; or why a custom range cannot be asked for. */
export function periodOf(choice: PeriodChoice, today: string, custom: Partial<Period> = {}): Period | PeriodProblem {
  if (choice !== 'custom') return { from: addDays(today, -(choice - 1)), to: today }
  const { from, to } = custom
  if (!from || !to) return 'incomplete'
  if (from > to) return 'backwards'
  if (daysBetween(from, to) + 1 > MAX_PERIOD_DAYS) return 'tooLong'
  return { from, to }
}

/** A day on an axis tick: day and month only (dd/mm in pt-BR, mm/dd in en-US); the tooltip shows the whole date. */
export function shortDay(day: string, locale: string): string {
  const full = formatDateBR(day, locale) ?? day
  return full.slice(0, 5)
}

/** The per-day chart: the days (oldest first) and the two series over them. */
export function dayAxis(days: UsageDay[]): { days: string[]; consultations: number[]; credits: number[] } {
  return {
    days: days.map((d) => d.day),
    consultations: days.map((d) => d.consultations),
    credits: days.map((d) => d.credits),
  }
}

/** Pie slices for the per-type and per-channel charts, busiest first, each named by `label`. */
export function slices(
  rows: UsageShare[],
  label: (key: string, consultations: number) => string,
): { id: string; value: number; label: string }[] {
  return rows
    .filter((r) => r.consultations > 0)
    .map((r) => ({ id: r.key, value: r.consultations, label: label(r.key, r.consultations) }))
}

export type BalanceSeries = {
  categories: CategoryFigures['category'][]
  used: number[]
  reserved: number[]
  granted: number[]
  /** null where the category is unlimited (nothing to stack) */
  available: (number | null)[]
  unlimited: CategoryFigures['category'][]
}

/** The stacked credit bars: one bar per category, used + reserved + granted + available = the limit. */
export function balanceSeries(figures: CategoryFigures[]): BalanceSeries {
  return {
    categories: figures.map((f) => f.category),
    used: figures.map((f) => f.used),
    reserved: figures.map((f) => f.reserved),
    granted: figures.map((f) => f.granted),
    available: figures.map((f) => (f.unlimited ? null : Math.max(0, f.available ?? 0))),
    unlimited: figures.filter((f) => f.unlimited).map((f) => f.category),
  }
}

/** Whether a category has anything to draw (a limit, or credits used, reserved or granted). */
export function hasCredits(figures: CategoryFigures[]): boolean {
  return figures.some((f) => f.unlimited || (f.limit ?? 0) > 0 || f.used > 0 || f.reserved > 0 || f.granted > 0)
}

/** The ranked list: each group's share of the busiest one (0–100), for its bar. */
export function ranked(groups: TopConsumer[]): (TopConsumer & { rank: number; share: number })[] {
  const top = Math.max(1, ...groups.map((g) => g.consultations))
  return groups.map((g, index) => ({ ...g, rank: index + 1, share: Math.round((g.consultations / top) * 100) }))
}
