import { useCallback } from 'react'
import { useTranslation } from 'react-i18next'
import { AUDIT_WORDS } from '../store/generated/auditWords'

type Lang = keyof typeof AUDIT_WORDS
const SEEDED_KEYS = ['cpf-complete', 'cnpj-complete'] as const
type SeededKey = (typeof SEEDED_KEYS)[number]

const isSeeded = (key: string): key is SeededKey => (SEEDED_KEYS as readonly string[]).includes(key)
const langOf = (lang: string | undefined): Lang => (lang && lang.toLowerCase().startsWith('en') ? 'en-US' : 'pt-BR')

/**
 * A query type's name in the user's language. The built-in (seeded) types are stored with their Portuguese
 * names; their words in each language are the server's (audit_words.json, the one source the audit log and
 * its export also read), by key. A name a super-admin changed is theirs and shows as typed. Without the
 * stored name (a key alone, e.g. a token's allowed types) a seeded key shows by its words, any other as it is.
 */
export function queryTypeName(key: string, storedName: string | undefined, lang: string | undefined): string {
  if (!isSeeded(key)) return storedName || key
  const seededName = AUDIT_WORDS['pt-BR'].values[key]
  if (storedName && storedName !== seededName) return storedName
  return AUDIT_WORDS[langOf(lang)].values[key]
}

/**
 * A query type's description in the user's language: a built-in type's stored (Portuguese) description by its
 * words in that language, one a super-admin changed as typed.
 */
export function queryTypeDescription(
  key: string,
  storedDescription: string | undefined,
  lang: string | undefined,
): string {
  if (!isSeeded(key)) return storedDescription ?? ''
  const seeded = AUDIT_WORDS['pt-BR'].seededDescriptions[key]
  if (storedDescription && storedDescription !== seeded) return storedDescription
  return AUDIT_WORDS[langOf(lang)].seededDescriptions[key]
}

/** `queryTypeName` in the language on screen. */
export function useQueryTypeName(): (key: string, storedName?: string) => string {
  const { i18n } = useTranslation()
  const lang = i18n.language
  return useCallback((key: string, storedName?: string) => queryTypeName(key, storedName, lang), [lang])
}

/** `queryTypeDescription` in the language on screen. */
export function useQueryTypeDescription(): (key: string, storedDescription?: string) => string {
  const { i18n } = useTranslation()
  const lang = i18n.language
  return useCallback(
    (key: string, storedDescription?: string) => queryTypeDescription(key, storedDescription, lang),
    [lang],
  )
}
