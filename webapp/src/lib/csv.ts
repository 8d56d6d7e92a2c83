import { display } from './format'

/** One CSV column: the row field to read, its header label and an optional formatter. */
export interface CsvColumn<Row> {
  field: keyof Row & string
  label: string
  format?: (value: Row[keyof Row & string], row: Row) => string
}

export const CSV_SEPARATOR = ';'
const BOM = '\uFEFF'

function two(n: number): string {
  return String(n).padStart(2, '0')
}

/** `base_dd-mm-yyyy_hh-mm-ss.csv` (local time of the browser, 24-hour). */
export function csvFileName(base = 'export', at: Date = new Date()): string {
  const day = `${two(at.getDate())}-${two(at.getMonth() + 1)}-${at.getFullYear()}`
  const time = `${two(at.getHours())}-${two(at.getMinutes())}-${two(at.getSeconds())}`
  return `${base || 'export'}_${day}_${time}.csv`
}

const FORMULA_START = /^[=+\-@\t\r]/
const SIGNED_NUMBER = /^[+-]?(\d+([.,]\d+)?)?$/

/**
 * The text, or the text after a single quote when a spreadsheet would run it as a formula (it
 * begins with = + - @, a tab or a carriage return), as OWASP recommends against CSV injection. A
 * sign alone or a signed number stays as it is: no spreadsheet runs those. The same rule as the
 * server's exports (bemtevi/api/exports.py).
 */
export function inert(value: string): string {
  return FORMULA_START.test(value) && !SIGNED_NUMBER.test(value) ? `'${value}` : value
}

/** A cell made inert, then quoted when it holds the separator, a quote, a line break or edge spaces; quotes doubled. */
export function csvCell(text: string): string {
  const value = inert(text)
  return /[";\r\n]|^\s|\s$/.test(value) ? `"${value.replace(/"/g, '""')}"` : value
}

function cellText<Row>(row: Row, column: CsvColumn<Row>): string {
  const value = row[column.field]
  if (column.format) return column.format(value, row)
  if (value === null || value === undefined) return ''
  const text = display(value)
  return text === '-' ? '' : text
}

/** The CSV text (header line then one line per row, CRLF line ends, ';' separator, no BOM). */
export function csvText<Row>(rows: Row[], columns: CsvColumn<Row>[]): string {
  const lines = [columns.map((c) => csvCell(c.label)).join(CSV_SEPARATOR)]
  for (const row of rows) lines.push(columns.map((c) => csvCell(cellText(row, c))).join(CSV_SEPARATOR))
  return lines.join('\r\n') + '\r\n'
}

/** Saves a blob under a file name through a temporary link. */
export function saveBlob(blob: Blob, fileName: string): void {
  const link = document.createElement('a')
  link.href = URL.createObjectURL(blob)
  link.download = fileName
  document.body.appendChild(link)
  link.click()
  link.remove()
  URL.revokeObjectURL(link.href)
}

/** Exports rows as a UTF-8 CSV (with a BOM so Excel reads the accents) and returns the file name. */
export function exportCsv<Row>(rows: Row[], columns: CsvColumn<Row>[], base = 'export'): string {
  const name = csvFileName(base)
  saveBlob(new Blob([BOM + csvText(rows, columns)], { type: 'text/csv;charset=utf-8' }), name)
  return name
}
