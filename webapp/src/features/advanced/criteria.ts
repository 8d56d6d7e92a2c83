/** The advanced query's form values and the result list's path (advanced-query-result-list/:name?/...). */
export const FIELDS = ['name', 'address', 'city', 'state', 'telephone', 'cellphone', 'email', 'birth'] as const
export type Field = (typeof FIELDS)[number]
export type Criteria = Record<Field, string>

/** An empty field's place in the path (every parameter is positional). */
const EMPTY = '-'

export function emptyCriteria(): Criteria {
  return Object.fromEntries(FIELDS.map((f) => [f, ''])) as Criteria
}

export function anyFilled(criteria: Partial<Criteria>): boolean {
  return FIELDS.some((f) => (criteria[f] ?? '').trim() !== '')
}

/** The list's path for the criteria; trailing empty fields are left out. */
export function resultListPath(criteria: Partial<Criteria>): string {
  const parts = FIELDS.map((f) => {
    const value = (criteria[f] ?? '').trim()
    return value ? encodeURIComponent(value) : EMPTY
  })
  while (parts.length && parts[parts.length - 1] === EMPTY) parts.pop()
  return `/advanced-query-result-list/${parts.join('/')}`
}

/** The criteria of the list's route parameters (react-router has decoded them already). */
export function criteriaOf(params: Partial<Record<string, string | undefined>>): Criteria {
  const criteria = emptyCriteria()
  for (const f of FIELDS) {
    const value = params[f]
    criteria[f] = value && value !== EMPTY ? value : ''
  }
  return criteria
}

/** Only the filled fields, as the API's form takes them. */
export function formOf(criteria: Criteria): Partial<Criteria> {
  return Object.fromEntries(FIELDS.filter((f) => criteria[f].trim()).map((f) => [f, criteria[f].trim()]))
}
