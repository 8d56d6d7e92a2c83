import type { ExitFieldView } from '../../store/generated/bemteviApi'
import { EMPTY_ROW, type RowForm } from './validation'

/** A field name as the server matches it: accents dropped, upper case, spaces and hyphens as underscores. */
export function fold(name: string): string {
  return name
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .replace(/[^\x20-\x7e]/g, '')
    .toUpperCase()
    .replace(/-/g, ' ')
    .trim()
    .split(/\s+/)
    .filter(Boolean)
    .join('_')
}

/** The catalogue's field an exit row names (by any of its names), if any. */
export function fieldOf(fields: ExitFieldView[], name: string): ExitFieldView | undefined {
  const folded = fold(name)
  return fields.find((f) => f.names.includes(folded))
}

/** What fills an exit row: a catalogue field, an entry passed through, or nothing (left empty). */
export type ExitSource = { kind: 'field'; field: ExitFieldView } | { kind: 'entry' } | { kind: 'unknown' }

export function sourceOf(fields: ExitFieldView[], entries: string[], name: string): ExitSource {
  const folded = fold(name)
  if (entries.some((e) => fold(e) === folded)) return { kind: 'entry' }
  const field = fieldOf(fields, name)
  return field ? { kind: 'field', field } : { kind: 'unknown' }
}

/** Exit rows numbered 1, 2, … in the order shown (the order is the list's, never typed). */
export function renumbered(rows: RowForm[]): RowForm[] {
  return rows.map((r, i) => ({
    ...r,
    order: String(i + 1),
    direction: 'exit',
  }))
}

/** The exit rows with a catalogue field added at the end, with its type, format and (fixed width) size. */
export function withField(rows: RowForm[], field: ExitFieldView, fixed: boolean): RowForm[] {
  if (rows.some((r) => fieldOf([field], r.name))) return rows
  const row: RowForm = {
    ...EMPTY_ROW,
    name: field.name,
    type: field.type,
    format: field.format,
    size: fixed ? String(field.size) : '',
    direction: 'exit',
  }
  return renumbered([...rows, row])
}

/** The exit rows with an entry passed through (the document written back beside its fields). */
export function withEntry(rows: RowForm[], entry: RowForm): RowForm[] {
  if (rows.some((r) => fold(r.name) === fold(entry.name))) return rows
  return renumbered([...rows, { ...entry, direction: 'exit' }])
}

export function moved(rows: RowForm[], index: number, by: -1 | 1): RowForm[] {
  const to = index + by
  if (to < 0 || to >= rows.length) return rows
  const next = [...rows]
  ;[next[index], next[to]] = [next[to], next[index]]
  return renumbered(next)
}

export function removed(rows: RowForm[], index: number): RowForm[] {
  return renumbered(rows.filter((_r, i) => i !== index))
}

/** The form's rows split by direction (entry rows first, exit rows in their order). */
export function splitRows(rows: RowForm[]): {
  entries: RowForm[]
  exits: RowForm[]
} {
  const exits = rows.filter((r) => r.direction === 'exit').sort((a, b) => Number(a.order) - Number(b.order))
  return { entries: rows.filter((r) => r.direction === 'entry'), exits }
}
