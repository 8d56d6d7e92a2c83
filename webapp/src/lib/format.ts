/** Display rule: empty, null, undefined or 'NULL' show '-'; anything else (0 included) as text. */
export function display(value: unknown): string {
  if (value === null || value === undefined) return '-'
  if (typeof value === 'number') return Number.isFinite(value) ? String(value) : '-'
  const text = String(value).trim()
  if (text === '' || text.toUpperCase() === 'NULL') return '-'
  return text
}

export function isEmptyValue(value: unknown): boolean {
  return display(value) === '-'
}

/** The two date styles: en-US (mm/dd/yyyy) for English, pt-BR (dd/mm/yyyy) for anything else. */
function dateLocale(locale: string): 'pt-BR' | 'en-US' {
  return locale === 'en-US' ? 'en-US' : 'pt-BR'
}

/**
 * "YYYY-MM-DD" (or "YYYY-MM-DD HH:MM:SS", taken as UTC) -> "dd/mm/yyyy" in pt-BR style.
 * Missing gives '--', unparseable gives null (the caller shows "Invalid date").
 */
export function formatDateBR(value: string | null | undefined, locale: string = 'pt-BR'): string | null {
  if (value === null || value === undefined || String(value).trim() === '') return '--'
  const text = String(value).trim()
  const dateOnly = /^(\d{4})-(\d{2})-(\d{2})$/.exec(text)
  if (dateOnly) {
    const [, y, m, d] = dateOnly
    const probe = new Date(Date.UTC(+y, +m - 1, +d))
    if (probe.getUTCFullYear() !== +y || probe.getUTCMonth() !== +m - 1 || probe.getUTCDate() !== +d) return null
    return dateLocale(locale) === 'en-US' ? `${m}/${d}/${y}` : `${d}/${m}/${y}`
  }
  const iso = /^\d{4}-\d{2}-\d{2}[ T]\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:?\d{2})?$/.test(text)
  if (!iso) return null
  const hasZone = /(Z|[+-]\d{2}:?\d{2})$/.test(text)
  const date = new Date(hasZone ? text.replace(' ', 'T') : `${text.replace(' ', 'T')}Z`)
  if (Number.isNaN(date.getTime())) return null
  return new Intl.DateTimeFormat(dateLocale(locale), {
    timeZone: 'America/Sao_Paulo',
    day: '2-digit',
    month: '2-digit',
    year: 'numeric',
  }).format(date)
}

/** Today's calendar day in São Paulo, "YYYY-MM-DD" (the product's day). */
export function todayInSaoPaulo(now: Date = new Date()): string {
  return new Intl.DateTimeFormat('en-CA', { timeZone: 'America/Sao_Paulo', year: 'numeric', month: '2-digit', day: '2-digit' }).format(now)
}

/** Date and time in America/Sao_Paulo, 24-hour: dd/mm/yyyy HH:mm in pt-BR, mm/dd/yyyy HH:mm in en-US. */
export function formatDateTimeBR(value: string | null | undefined, locale: string = 'pt-BR'): string | null {
  if (!value) return '--'
  const text = String(value).trim()
  const hasZone = /(Z|[+-]\d{2}:?\d{2})$/.test(text)
  const date = new Date(hasZone ? text.replace(' ', 'T') : `${text.replace(' ', 'T')}Z`)
  if (Number.isNaN(date.getTime())) return null
  return new Intl.DateTimeFormat(dateLocale(locale), {
    timeZone: 'America/Sao_Paulo',
    day: '2-digit',
    month: '2-digit',
    year: 'numeric',
    hour: '2-digit',
    minute: '2-digit',
    hourCycle: 'h23',
  }).format(date)
}

/** A UTC moment's time of day in America/Sao_Paulo (the product's times), 24-hour HH:mm:ss. */
export function formatTime(value: string, locale: string = 'pt-BR'): string {
  const date = new Date(value)
  if (Number.isNaN(date.getTime())) return '--'
  return new Intl.DateTimeFormat(dateLocale(locale), {
    timeZone: 'America/Sao_Paulo',
    hour: '2-digit',
    minute: '2-digit',
    second: '2-digit',
    hourCycle: 'h23',
  }).format(date)
}

export function formatMoney(value: number | string | null | undefined, locale: string): string {
  if (isEmptyValue(value)) return '-'
  const n = typeof value === 'number' ? value : Number(String(value).replace(',', '.'))
  if (!Number.isFinite(n)) return display(value)
  return new Intl.NumberFormat(locale, { style: 'currency', currency: 'BRL' }).format(n)
}

export function formatNumber(value: number, locale: string): string {
  return new Intl.NumberFormat(locale).format(value)
}

/** First name: the first word of the full name. */
export function firstName(fullName: string | null | undefined): string {
  return (fullName ?? '').trim().split(/\s+/)[0] ?? ''
}

/** Shown for a date that cannot be read (spec section 8). */
export const INVALID_DATE = 'Invalid date'
/** Shown for a missing date. */
export const MISSING_DATE = '--'
/** Shown for an empty field of a report. */
export const NOTHING_ON_RECORD = 'Nada Consta'

/** A date for display: '--' when missing, 'Invalid date' when unreadable, else dd/mm/yyyy (mm/dd/yyyy in en-US). */
export function showDate(value: string | null | undefined, locale: string = 'pt-BR'): string {
  return formatDateBR(value, locale) ?? INVALID_DATE
}

/** A date and time for display: '--' when missing, 'Invalid date' when unreadable, else dd/mm/yyyy HH:mm (São Paulo). */
export function showDateTime(value: string | null | undefined, locale: string = 'pt-BR'): string {
  return formatDateTimeBR(value, locale) ?? INVALID_DATE
}

/** A report field: empty, null or 'NULL' shows 'Nada Consta' ('0' stays). */
export function reportValue(value: unknown): string {
  return isEmptyValue(value) ? NOTHING_ON_RECORD : display(value)
}

/** Cuts a text to `max` characters, the last three being '...' when it was longer. */
export function truncate(value: unknown, max: number): string {
  const text = display(value)
  if (text.length <= max) return text
  if (max <= 3) return '...'.slice(0, Math.max(0, max))
  return `${text.slice(0, max - 3).trimEnd()}...`
}

/** "a | b|c" -> ['a', 'b', 'c'] (empty and 'NULL' parts dropped): each becomes a label item. */
export function pipeItems(value: unknown): string[] {
  if (isEmptyValue(value)) return []
  return String(value)
    .split('|')
    .map((part) => part.trim())
    .filter((part) => part !== '' && part.toUpperCase() !== 'NULL')
}

// Documents and phones have their display rules beside their checks (lib/documents.ts):
// CPF 000.000.000-00, CNPJ 00.000.000/0000-00, phones (00) 00000-0000 / (00) 0000-0000, CEP 00000-000.
export { formatCnpj, formatCpf, formatDocument, formatPhone, formatZip } from './documents'
