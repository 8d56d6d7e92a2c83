import { useState } from 'react'
import { useTranslation } from 'react-i18next'
import type { Message } from './validation'

/**
 * The rules' errors of a catalogue form: shown once a save was tried, from then on following the typing.
 * `mayGo()` starts showing them and says whether the form may be sent.
 */
export function useRuleErrors<F>(form: F, rules: (form: F) => Record<string, Message>) {
  const { t } = useTranslation()
  const [tried, setTried] = useState(false)
  const errors: Record<string, Message> = tried ? rules(form) : {}
  const err = (field: string) => {
    const found = errors[field]
    if (!found) return undefined
    // A message's values are i18n keys too (a row's direction, say).
    const values = found.values ? Object.fromEntries(Object.entries(found.values).map(([k, v]) => [k, t(v)])) : undefined
    return t(found.key, values)
  }
  const mayGo = () => {
    setTried(true)
    return Object.keys(rules(form)).length === 0
  }
  return { err, mayGo }
}
