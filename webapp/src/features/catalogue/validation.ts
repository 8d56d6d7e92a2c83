import type { LayoutRequest, LayoutRowModel, QueryTypeRequest } from '../../store/generated/bemteviApi'

/** The query type form: days as typed (empty: not given). */
export type QueryTypeForm = Omit<QueryTypeRequest, 'cacheDays' | 'validityDays'> & { cacheDays: string; validityDays: string }

export const TOGGLES = ['phone', 'cpf', 'cnpj', 'benefit', 'status'] as const
export const EXTENSIONS = ['txt', 'csv', 'xlsx'] as const
export const FIELD_TYPES: LayoutRowModel['type'][] = ['text', 'number', 'document', 'date', 'phone', 'email']

export const EMPTY_QUERY_TYPE: QueryTypeForm = {
  name: '',
  description: '',
  icon: '',
  badge: '',
  toggles: { phone: false, cpf: true, cnpj: false, benefit: false, status: false },
  default: false,
  component: 'person',
  cacheDays: '30',
  validityDays: '90',
}

export type Message = { key: string; values?: Record<string, string> }

function days(text: string): number | null {
  const value = Number(text)
  return text.trim() !== '' && Number.isInteger(value) && value >= 0 && value <= 3650 ? value : null
}

/** The query type's rules (specification section 5), as the API checks them: field -> message. */
export function queryTypeErrors(form: QueryTypeForm): Record<string, Message> {
  const errors: Record<string, Message> = {}
  if (form.name.trim().length < 3) errors.name = { key: form.name.trim() ? 'catalogue.errors.nameShort' : 'catalogue.errors.required' }
  for (const field of ['badge', 'icon', 'description'] as const) {
    if (!form[field].trim()) errors[field] = { key: 'catalogue.errors.required' }
  }
  if (!form.toggles.cpf && !form.toggles.cnpj) errors.cpf = { key: 'catalogue.errors.document' }
  for (const field of ['cacheDays', 'validityDays'] as const) {
    if (!form[field].trim()) errors[field] = { key: 'catalogue.errors.required' }
    else if (days(form[field]) === null) errors[field] = { key: 'catalogue.errors.days' }
  }
  const cache = days(form.cacheDays)
  const validity = days(form.validityDays)
  if (!errors.cacheDays && cache !== null && validity !== null && cache > validity) {
    errors.cacheDays = { key: 'catalogue.errors.cacheOverValidity' }
  }
  return errors
}

export function queryTypeRequest(form: QueryTypeForm): QueryTypeRequest {
  return { ...form, cacheDays: days(form.cacheDays), validityDays: days(form.validityDays) }
}

/** A layout row as typed: numbers as text. */
export type RowForm = Omit<LayoutRowModel, 'order' | 'size'> & { order: string; size: string }
export type LayoutForm = Omit<LayoutRequest, 'rows'> & { rows: RowForm[] }

export const EMPTY_ROW: RowForm = { name: '', type: 'text', order: '', format: '', size: '', direction: 'entry' }

export const EMPTY_LAYOUT: LayoutForm = {
  fileName: '',
  finalFileName: '',
  returnExtension: 'csv',
  acceptedExtension: 'csv',
  kind: 'delimited',
  delimiter: ';',
  firstLine: true,
  table: '',
  rows: [
    { ...EMPTY_ROW, name: 'cpf', type: 'document', order: '1', size: '11' },
    { ...EMPTY_ROW, name: 'cpf', type: 'document', order: '1', size: '11', direction: 'exit' },
  ],
}

function whole(text: string): number | null {
  const value = Number(text)
  return text.trim() !== '' && Number.isInteger(value) ? value : null
}

/** The layout's rules (specification section 5 and what reading a line needs): field -> message. */
export function layoutErrors(form: LayoutForm): Record<string, Message> {
  const errors: Record<string, Message> = {}
  for (const field of ['fileName', 'finalFileName', 'returnExtension', 'acceptedExtension', 'table'] as const) {
    if (!form[field].trim()) errors[field] = { key: 'catalogue.errors.required' }
  }
  for (const field of ['returnExtension', 'acceptedExtension'] as const) {
    if (!errors[field] && !(EXTENSIONS as readonly string[]).includes(form[field].trim().toLowerCase().replace(/^\./, ''))) {
      errors[field] = { key: 'catalogue.errors.extension' }
    }
  }
  if (form.kind === 'delimited') {
    const delimiter = form.delimiter ?? ''
    if (!delimiter) errors.delimiter = { key: 'catalogue.errors.required' }
    else if (delimiter.length !== 1 || delimiter === '"') errors.delimiter = { key: 'catalogue.errors.delimiter' }
  }
  form.rows.forEach((row, i) => {
    if (!row.name.trim()) errors[`rows.${i}.name`] = { key: 'catalogue.errors.required' }
    const order = whole(row.order)
    if (order === null || order < 1) errors[`rows.${i}.order`] = { key: 'catalogue.errors.order' }
    const size = whole(row.size)
    if (form.kind === 'fixed' || row.size.trim()) {
      if (size === null || size < 1 || size > 1000) errors[`rows.${i}.size`] = { key: 'catalogue.errors.size' }
    }
  })
  if (!form.rows.some((r) => r.direction === 'entry')) errors.rows = { key: 'catalogue.errors.rows' }
  for (const direction of ['entry', 'exit'] as const) {
    const mine = form.rows.filter((r) => r.direction === direction)
    const label = `catalogue.layouts.directions.${direction}`
    if (new Set(mine.map((r) => r.order.trim())).size !== mine.length) {
      errors.rows ??= { key: 'catalogue.errors.orderRepeated', values: { direction: label } }
    }
    if (new Set(mine.map((r) => r.name.trim())).size !== mine.length) {
      errors.rows ??= { key: 'catalogue.errors.nameRepeated', values: { direction: label } }
    }
  }
  return errors
}

export function layoutRequest(form: LayoutForm): LayoutRequest {
  return {
    ...form,
    delimiter: form.kind === 'delimited' ? form.delimiter : '',
    rows: form.rows.map((r) => ({
      ...r,
      order: whole(r.order) ?? 0,
      size: r.size.trim() ? whole(r.size) : null,
    })),
  }
}

export function layoutFormOf(view: LayoutRequest): LayoutForm {
  return {
    fileName: view.fileName,
    finalFileName: view.finalFileName,
    returnExtension: view.returnExtension,
    acceptedExtension: view.acceptedExtension,
    kind: view.kind,
    delimiter: view.delimiter ?? '',
    firstLine: view.firstLine ?? false,
    table: view.table,
    rows: view.rows.map((r) => ({
      name: r.name,
      type: r.type,
      order: String(r.order),
      format: r.format ?? '',
      size: r.size == null ? '' : String(r.size),
      direction: r.direction,
    })),
  }
}
