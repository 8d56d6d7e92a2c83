import type { LayoutView } from '../../store/generated/bemteviApi'
import { formatNumber } from '../../lib/format'
import type { BatchLimits, BatchRow, BatchStatus } from './api'

/** The specification's upload limit (10 MB), checked before sending. */
export const MAX_FILE_BYTES = 10 * 1024 * 1024
export const EXTENSIONS = ['TXT', 'CSV', 'XLSX'] as const

/** The server's limits on one file, as the upload screen shows them (`batches.upload.fileLimits`). */
export function fileLimitsValues(limits: BatchLimits, lang: string): { mb: string; records: string } {
  return { mb: formatNumber(Math.floor(limits.maxBytes / (1024 * 1024)), lang), records: formatNumber(limits.maxRecords, lang) }
}

/** What the upload form holds. */
export interface UploadForm {
  layout: LayoutView | null
  extension: string
  file: File | null
  webhookUrl: string
}

/** The form's errors by field: i18n keys under `batches.errors` (empty: it may be sent). */
export function uploadErrors(form: UploadForm): Partial<Record<'layout' | 'extension' | 'file' | 'webhookUrl', string>> {
  const errors: Partial<Record<'layout' | 'extension' | 'file' | 'webhookUrl', string>> = {}
  if (!form.layout) errors.layout = 'layoutRequired'
  else if (!form.layout.rows.some((r) => r.direction === 'entry')) errors.layout = 'entryEmpty'
  else if (!form.layout.rows.some((r) => r.direction === 'exit')) errors.layout = 'returnEmpty'
  const extension = form.extension.toUpperCase()
  if (!extension) errors.extension = 'extensionRequired'
  else if (!(EXTENSIONS as readonly string[]).includes(extension)) errors.extension = 'extensionNotAllowed'
  if (!form.file) errors.file = 'fileRequired'
  else if (form.file.size === 0) errors.file = 'file_empty'
  else if (form.file.size > MAX_FILE_BYTES) errors.file = 'file_too_large'
  else if (extension && fileExtension(form.file.name) !== extension) errors.file = 'fileExtensionMismatch'
  const url = form.webhookUrl.trim()
  if (url && !/^https?:\/\/[^\s/]+/i.test(url)) errors.webhookUrl = 'webhookUrl'
  return errors
}

/** A file name's extension, upper-cased ('' without one). */
export function fileExtension(name: string): string {
  const dot = name.lastIndexOf('.')
  return dot < 0 ? '' : name.slice(dot + 1).toUpperCase()
}

/** The chip colour of a status. */
export function statusColor(status: BatchStatus): 'default' | 'info' | 'success' | 'error' | 'warning' {
  return ({ waiting: 'default', processing: 'info', available: 'success', error: 'error', canceled: 'warning' } as const)[status]
}

/** A batch still running: it can be canceled and shows a live progress bar. */
export function isRunning(status: BatchStatus): boolean {
  return status === 'waiting' || status === 'processing'
}

/** Percent of records done (0 to 100). */
export function percentDone(done: number, records: number): number {
  if (records <= 0) return 0
  return Math.min(100, Math.round((done / records) * 100))
}

/** Time left as the screens say it: '45 s', '3 min 05 s', '1 h 02 min'; null when unknown. */
export function showEta(seconds: number | null | undefined): string | null {
  if (seconds === null || seconds === undefined || !Number.isFinite(seconds) || seconds < 0) return null
  const s = Math.round(seconds)
  if (s < 60) return `${s} s`
  if (s < 3600) return `${Math.floor(s / 60)} min ${String(s % 60).padStart(2, '0')} s`
  return `${Math.floor(s / 3600)} h ${String(Math.floor((s % 3600) / 60)).padStart(2, '0')} min`
}

/** The text of a batch's failure or cancel message: who canceled it when the server names them ("Canceled by
 * Maria Silva"), else its code's translation (`batches.messages.<code>`), the server's message for a code this app
 * does not know, null when there is none. */
export function batchMessage(
  row: Pick<BatchRow, 'message' | 'messageCode'> & Partial<Pick<BatchRow, 'status' | 'canceledByName'>>,
  t: (key: string, values?: Record<string, string>) => string,
  exists: (key: string) => boolean,
): string | null {
  if (row.status === 'canceled' && row.canceledByName) return t('batches.messages.canceledByName', { name: row.canceledByName })
  const key = row.messageCode ? `batches.messages.${row.messageCode}` : null
  if (key && exists(key)) return t(key)
  return row.message || null
}

/** The progress event's data (GET /api/batches/{id}/progress). */
export interface ProgressData {
  status: BatchStatus
  records: number
  done: number
  found: number
  invalid: number
  etaSeconds: number | null
}

/** Reads one progress event's data; null when it is not one. */
export function parseProgress(data: string): ProgressData | null {
  try {
    const value = JSON.parse(data) as Partial<ProgressData>
    if (typeof value.status !== 'string' || typeof value.done !== 'number') return null
    return {
      status: value.status,
      records: value.records ?? 0,
      done: value.done,
      found: value.found ?? 0,
      invalid: value.invalid ?? 0,
      etaSeconds: value.etaSeconds ?? null,
    }
  } catch {
    return null
  }
}
