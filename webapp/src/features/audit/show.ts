import { formatCnpj, formatCpf, formatPhone } from '../../lib/documents'

/** What the formatter needs of i18next: a text by key, and whether a key has one. */
export interface Words {
  t: (key: string) => string
  exists: (key: string) => boolean
}

/** Fields whose values are enumerations the `values` map translates (the rest are shown as written). */
const ENUM_FIELDS = new Set(['role', 'status', 'group_type', 'category', 'creditLimit', 'queryType'])
/** Fields whose enumeration words depend on the field (`byField.<field>.<value>`). */
const BY_FIELD = new Set(['component', 'kind', 'auth_method', 'input_type', 'delimiter'])
/** Fields holding a list of enumeration values ('a, b'), each translated. */
const LIST_FIELDS = new Set(['enabled_query_types', 'allowed_query_types'])
/** A layout's rows as the server writes them: "cpf (document, 11), nome (text)". */
const ROW_FIELDS = new Set(['entry_fields', 'exit_fields'])
const DELIMITER_WORDS: Record<string, string> = { '\t': 'tab', ' ': 'space' }

/** A changed value as a person reads it: documents and phones formatted, enumerations, toggles
 * and a layout's row types translated; anything the maps lack is shown as it is. */
export function showAuditValue(field: string, value: string | null | undefined, { t, exists }: Words): string {
  if (value === null || value === undefined || value === '') return '—'
  const word = (key: string, fallback: string) => (exists(key) ? t(key) : fallback)
  if (field === 'cnpj' && /^\d{14}$/.test(value)) return formatCnpj(value)
  if (field === 'cpf' && /^\d{11}$/.test(value)) return formatCpf(value)
  if (field === 'phone') return formatPhone(value) || value
  if (BY_FIELD.has(field)) {
    const key = field === 'delimiter' ? (DELIMITER_WORDS[value] ?? value) : value
    return /^[\w-]+$/.test(key) ? word(`audit.byField.${field}.${key}`, value) : value
  }
  if (LIST_FIELDS.has(field)) {
    return value
      .split(', ')
      .map((v) => word(`audit.values.${v}`, v))
      .join(', ')
  }
  if (ROW_FIELDS.has(field)) {
    return value.replace(/\((\w+)(?=[,)])/g, (_whole, type: string) => `(${word(`audit.rowTypes.${type}`, type)}`)
  }
  if (ENUM_FIELDS.has(field) || value === 'true' || value === 'false') return word(`audit.values.${value}`, value)
  return value
}
