/** Marketing figures of the specification (section 1), shown with a count-up. */
export interface Figure {
  key: 'records' | 'users' | 'customers' | 'layouts' | 'years' | 'companies' | 'efficiency'
  value: number
  prefix?: string
  suffix?: string
  /** i18n key of a suffix that depends on the language ("mi" / "M"). */
  suffixKey?: string
}

export const RECORDS: Figure = { key: 'records', value: 360, suffix: 'M+' }

export const FIGURES: Figure[] = [
  RECORDS,
  { key: 'users', value: 7000, suffix: '+' },
  { key: 'customers', value: 900, prefix: '+' },
  { key: 'layouts', value: 200, prefix: '+' },
  { key: 'years', value: 12, suffix: '+' },
  { key: 'companies', value: 1, suffixKey: 'public.stats.million' },
  { key: 'efficiency', value: 80, suffix: '%' },
]

export const FOUNDED = 2011
