import { describe, expect, it } from 'vitest'
import type { LayoutView } from '../../store/generated/bemteviApi'
import { batchMessage, fileLimitsValues, MAX_FILE_BYTES, parseProgress, percentDone, showEta, uploadErrors } from './rules'

function layout(directions: ('entry' | 'exit')[]): LayoutView {
  return {
    id: 'l1',
    acceptedExtension: 'csv',
    returnExtension: 'csv',
    active: true,
    createdAt: '',
    updatedAt: '',
    delimiter: ';',
    fileName: 'x',
    finalFileName: 'y',
    firstLine: true,
    kind: 'delimited',
    table: 'person',
    rows: directions.map((direction, i) => ({ direction, name: `F${i}`, order: i + 1, type: 'text' })),
  }
}

function file(name: string, size: number): File {
  const f = new File(['x'], name)
  Object.defineProperty(f, 'size', { value: size })
  return f
}

describe('uploadErrors', () => {
  it('asks for layout, extension and file', () => {
    expect(uploadErrors({ layout: null, extension: '', file: null, webhookUrl: '' })).toEqual({
      layout: 'layoutRequired',
      extension: 'extensionRequired',
      file: 'fileRequired',
    })
  })

  it('refuses a layout without entry or exit rows', () => {
    const base = { extension: 'CSV', file: file('a.csv', 10), webhookUrl: '' }
    expect(uploadErrors({ ...base, layout: layout(['exit']) }).layout).toBe('entryEmpty')
    expect(uploadErrors({ ...base, layout: layout(['entry']) }).layout).toBe('returnEmpty')
    expect(uploadErrors({ ...base, layout: layout(['entry', 'exit']) })).toEqual({})
  })

  it('refuses other extensions, empty, too large and mismatched files, and a bad webhook', () => {
    const l = layout(['entry', 'exit'])
    expect(uploadErrors({ layout: l, extension: 'PDF', file: file('a.pdf', 10), webhookUrl: '' }).extension).toBe('extensionNotAllowed')
    expect(uploadErrors({ layout: l, extension: 'CSV', file: file('a.csv', 0), webhookUrl: '' }).file).toBe('file_empty')
    expect(uploadErrors({ layout: l, extension: 'CSV', file: file('a.csv', MAX_FILE_BYTES + 1), webhookUrl: '' }).file).toBe('file_too_large')
    expect(uploadErrors({ layout: l, extension: 'CSV', file: file('a.csv', MAX_FILE_BYTES), webhookUrl: '' })).toEqual({})
    expect(uploadErrors({ layout: l, extension: 'CSV', file: file('a.txt', 10), webhookUrl: '' }).file).toBe('fileExtensionMismatch')
    expect(uploadErrors({ layout: l, extension: 'CSV', file: file('a.csv', 10), webhookUrl: 'ftp://x' }).webhookUrl).toBe('webhookUrl')
  })
})

describe('file limits', () => {
  it('shows the server\'s bytes and records in the language', () => {
    const limits = { maxBytes: 10 * 1024 * 1024, maxRecords: 1_000_000 }
    expect(fileLimitsValues(limits, 'pt-BR')).toEqual({ mb: '10', records: '1.000.000' })
    expect(fileLimitsValues(limits, 'en-US')).toEqual({ mb: '10', records: '1,000,000' })
  })
})

describe('progress', () => {
  it('says the percent and the time left', () => {
    expect(percentDone(0, 0)).toBe(0)
    expect(percentDone(250, 1000)).toBe(25)
    expect(showEta(null)).toBeNull()
    expect(showEta(45)).toBe('45 s')
    expect(showEta(185)).toBe('3 min 05 s')
    expect(showEta(3720)).toBe('1 h 02 min')
  })

  it('reads a progress event', () => {
    expect(parseProgress('{"status":"processing","records":10,"done":4,"found":3,"invalid":1,"etaSeconds":2}')).toEqual({
      status: 'processing',
      records: 10,
      done: 4,
      found: 3,
      invalid: 1,
      etaSeconds: 2,
    })
    expect(parseProgress('nope')).toBeNull()
  })
})

describe('batchMessage', () => {
  const texts: Record<string, string> = { 'batches.messages.canceled_by_owner': 'Cancelado pelo dono' }
  const t = (k: string) => texts[k] ?? k
  const exists = (k: string) => k in texts
  it('translates a known code', () => {
    expect(batchMessage({ message: 'Canceled by owner', messageCode: 'canceled_by_owner' }, t, exists)).toBe('Cancelado pelo dono')
  })
  it('names who canceled, whatever their role, when the server knows them', () => {
    const named = (k: string, v?: Record<string, string>) => (k === 'batches.messages.canceledByName' ? `Cancelado por ${v?.name}` : t(k))
    const row = { status: 'canceled' as const, message: 'Canceled by user', messageCode: 'canceled_by_user', canceledByName: 'Maria Silva' }
    expect(batchMessage(row, named, exists)).toBe('Cancelado por Maria Silva')
    // A canceler no longer in the directory: the role's text, as before.
    expect(batchMessage({ ...row, messageCode: 'canceled_by_owner', canceledByName: null }, named, exists)).toBe('Cancelado pelo dono')
  })
  it("falls back to the server's message for an unknown code or none", () => {
    expect(batchMessage({ message: 'The supplier did not answer', messageCode: 'vendor_failed' }, t, exists)).toBe('The supplier did not answer')
    expect(batchMessage({ message: 'Old message', messageCode: null }, t, exists)).toBe('Old message')
    expect(batchMessage({ message: null, messageCode: undefined }, t, exists)).toBeNull()
  })
})
