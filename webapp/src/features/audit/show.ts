import { formatCnpj, formatCpf, formatPhone } from '../../lib/documents'
import { formatNumber, showDate } from '../../lib/format'

/** What the formatter needs of i18next: a text by key (with values), whether a key has one, the language. */
export interface Words {
  t: (key: string, values?: Record<string, unknown>) => string
  exists: (key: string) => boolean
  /** Numbers and dates follow it (pt-BR when not given). */
  lang?: string
}

/** Fields whose values are enumerations the `values` map translates (the rest are shown as written). */
const ENUM_FIELDS = new Set(['role', 'status', 'group_type', 'creditLimit', 'queryType', 'query_type', 'channel', 'export'])
/** Fields whose enumeration words depend on the field (`byField.<field>.<value>`). */
const BY_FIELD = new Set(['component', 'kind', 'auth_method', 'input_type', 'delimiter', 'document_type', 'transport', 'category'])
/** Fields holding a list of enumeration values ('a, b'), each translated. */
const LIST_FIELDS = new Set(['enabled_query_types', 'allowed_query_types', 'query_types'])
/** Lists whose change reads as what was added and removed (the server's ``LIST_CHANGE_FIELDS``). */
const LIST_CHANGE_FIELDS = new Set([...LIST_FIELDS, 'enabled_layouts', 'allowed_layouts'])
/** A layout's rows as the server writes them: "cpf (document, 11), nome (text)". */
const ROW_FIELDS = new Set(['entry_fields', 'exit_fields'])
/** Counts and credits: digits grouped as the language does ("1.200"). */
const NUMBER_FIELDS = new Set([
  'records',
  'valid_documents',
  'credits_reserved',
  'records_done',
  'found',
  'invalid',
  'charged',
  'amount',
  'credits',
  'consultations',
  'matches',
  'creditLimit',
  'per_second',
  'per_day',
])
/** Documents, whichever kind their digits say. */
const DOCUMENT_FIELDS = new Set(['document', 'cpf', 'cnpj'])
const PHONE_FIELDS = new Set(['phone', 'telephone', 'cellphone'])
const DELIMITER_WORDS: Record<string, string> = { '\t': 'tab', ' ': 'space' }
const ISO_DATE = /^\d{4}-\d{2}-\d{2}(T[\d:.]+Z?)?$/

function document(value: string): string | null {
  if (/^\d{11}$/.test(value)) return formatCpf(value)
  if (/^\d{14}$/.test(value)) return formatCnpj(value)
  return null
}

/** A changed value as a person reads it: documents, phones, counts, sizes and dates formatted, enumerations,
 * toggles and a layout's row types translated; anything the maps lack is shown as it is. */
export function showAuditValue(field: string, value: string | null | undefined, { t, exists, lang = 'pt-BR' }: Words): string {
  if (value === null || value === undefined || value === '') return '—'
  const word = (key: string, fallback: string) => (exists(key) ? t(key) : fallback)
  if (DOCUMENT_FIELDS.has(field)) return document(value) ?? value
  if (PHONE_FIELDS.has(field)) return formatPhone(value) || value
  if (NUMBER_FIELDS.has(field) && /^-?\d+$/.test(value)) return formatNumber(Number(value), lang)
  if (field === 'size' && /^\d+$/.test(value)) return bytes(Number(value), lang)
  if (ISO_DATE.test(value)) return showDate(value.slice(0, 10), lang)
  if (BY_FIELD.has(field)) {
    const key = field === 'delimiter' ? (DELIMITER_WORDS[value] ?? value) : value
    return /^[\w-]+$/.test(key) ? word(`audit.byField.${field}.${key}`, value) : value
  }
  if (LIST_FIELDS.has(field)) {
    return value
      .split(', ')
      .map((v) => (/^[\w-]+$/.test(v) ? word(`audit.values.${v}`, v) : v))
      .join(', ')
  }
  if (ROW_FIELDS.has(field)) {
    return value.replace(/\((\w+)(?=[,)])/g, (_whole, type: string) => `(${word(`audit.rowTypes.${type}`, type)}`)
  }
  if ((ENUM_FIELDS.has(field) || value === 'true' || value === 'false') && /^[\w-]+$/.test(value)) {
    return word(`audit.values.${value}`, value)
  }
  return value
}

function bytes(n: number, lang: string): string {
  if (n < 1024) return `${formatNumber(n, lang)} B`
  const kb = n / 1024
  if (kb < 1024) return `${new Intl.NumberFormat(lang, { maximumFractionDigits: 1 }).format(kb)} KB`
  return `${new Intl.NumberFormat(lang, { maximumFractionDigits: 1 }).format(kb / 1024)} MB`
}

/** What a sentence knows of its row (the API's AuditRow, in part). */
export interface SentenceRow {
  aggregateType: string
  eventType: string
  actorId?: string | null
  actorName?: string | null
  actorEmail?: string | null
  targetType?: string | null
  targetName?: string | null
  targetId?: string | null
  details?: Record<string, string | null | undefined>
}

/** Details said with their count's words in a sentence ("1.200 registros"): field -> `audit.counts.<word>`. */
const COUNTED: Record<string, string> = {
  records: 'records',
  records_done: 'processed',
  found: 'found',
  invalid: 'invalid',
  charged: 'charged',
  amount: 'credits',
  credits: 'credits',
  credits_reserved: 'credits',
  consultations: 'consultations',
  matches: 'results',
}

/** The row's target as a person reads it: a document formatted, else its name, else its id. */
export function targetText(row: SentenceRow): string {
  if (!row.targetType) return '—'
  if (row.targetType === 'document' && row.targetName) return document(row.targetName) ?? row.targetName
  return row.targetName ?? row.targetId ?? '—'
}

/** The sentence's key: a credit movement taken back (a negative amount) reads the other way; a user who changed
 * their own password, details, photo or preferences reads 'their own' where the language has it. */
function sentenceKey(row: SentenceRow, exists: (key: string) => boolean): string {
  const key = `audit.sentences.${row.aggregateType}.${row.eventType}`
  if (row.aggregateType === 'CreditAccount' && /^-\d/.test(row.details?.amount ?? '')) return `${key}Back`
  const self = row.targetType === 'user' && !!row.actorId && row.actorId === row.targetId
  return self && exists(`${key}Self`) ? `${key}Self` : key
}

/** Whether the kind of event has a sentence in the current language. */
export function hasSentence(row: SentenceRow, words: Words): boolean {
  return words.exists(sentenceKey(row, words.exists))
}

/** The row as one sentence in the current language ("Maria enviou o lote clientes.csv (1.200 registros) com o
 * layout CPF básico"): who, to what, with the event's details formatted; a detail the event lacks reads '—'.
 * A kind with no sentence (none ships: a test checks) falls back to its name. */
export function auditSentence(row: SentenceRow, words: Words): string {
  const { t, exists, lang = 'pt-BR' } = words
  const key = sentenceKey(row, exists)
  if (!exists(key)) {
    const name = `audit.events.${row.aggregateType}.${row.eventType}`
    return exists(name) ? t(name) : `${row.aggregateType} · ${row.eventType}`
  }
  const values: Record<string, string> = {
    actor: row.actorName ?? row.actorEmail ?? t('audit.system'),
    target: targetText(row),
  }
  for (const [field, raw] of Object.entries(row.details ?? {})) {
    if (field === 'actor' || field === 'target') continue
    const counted = COUNTED[field]
    if (counted && raw && /^-?\d+$/.test(raw)) {
      const n = Math.abs(Number(raw))
      values[field] = t(`audit.counts.${counted}`, { count: n, n: formatNumber(n, lang) })
    } else if (field === 'creditLimit' && raw && /^\d+$/.test(raw)) {
      values[field] = t('audit.counts.credits', { count: Number(raw), n: formatNumber(Number(raw), lang) })
    } else {
      values[field] = showAuditValue(field, raw, words)
    }
  }
  // A detail the event lacks reads '—' (the template's own placeholders, read from it uninterpolated).
  for (const [, name] of t(key, { skipInterpolation: true }).matchAll(/\{\{\s*(\w+)\s*\}\}/g)) values[name] ??= '—'
  // Values are text, never markup (React escapes what it renders), passed as `replace` so that a field named like
  // one of i18next's options (count, context, ...) stays a value.
  return t(key, { replace: values, interpolation: { escapeValue: false } })
}

/** A field's label; a few depend on the kind of event (a batch's 'kind' is not a layout's format). */
export function auditFieldName(type: string, field: string, { t, exists }: Words): string {
  if (exists(`audit.fieldsOf.${type}.${field}`)) return t(`audit.fieldsOf.${type}.${field}`)
  return exists(`audit.fields.${field}`) ? t(`audit.fields.${field}`) : field
}

/** One change as the list shows it ('Label: before → after'; an image says only that it changed). */
export function changeText(type: string, c: { field: string; before?: string | null; after?: string | null; kind: string }, words: Words): string {
  const name = auditFieldName(type, c.field, words)
  if (c.kind === 'image') return `${name}: ${words.t('audit.imageChanged')}`
  if (c.before === null || c.before === undefined) return `${name}: ${showAuditValue(c.field, c.after, words)}`
  const diff = listChange(c.field, c.before, c.after, words)
  if (diff !== null) return `${name}: ${diff}`
  return `${name}: ${showAuditValue(c.field, c.before, words)} → ${showAuditValue(c.field, c.after, words)}`
}

/**
 * A list's change as what it gained and lost ('+ a · − b'): thirty layouts before and after, one added, read as
 * sixty names. Null for another field, or a list cut short (its last name is not whole).
 */
function listChange(field: string, before: string | null, after: string | null | undefined, words: Words): string | null {
  const [was, now] = [before ?? '', after ?? '']
  if (!LIST_CHANGE_FIELDS.has(field) || was.endsWith('…') || now.endsWith('…')) return null
  const [old, next] = [was.split(', '), now.split(', ')]
  const added = next.filter((v) => v && !old.includes(v))
  const removed = old.filter((v) => v && !next.includes(v))
  if (added.length === 0 && removed.length === 0) return null
  const pieces = added.length ? [`+ ${showAuditValue(field, added.join(', '), words)}`] : []
  if (removed.length) pieces.push(`− ${showAuditValue(field, removed.join(', '), words)}`)
  return pieces.join(' · ')
}
