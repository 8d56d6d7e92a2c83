export type StatusChoice = 'all' | 'active' | 'inactive'

/** The API's `active` filter of a status choice (undefined: both). */
export function statusParam(choice: StatusChoice): boolean | undefined {
  return choice === 'all' ? undefined : choice === 'active'
}
