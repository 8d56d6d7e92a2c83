import { describe, expect, it } from 'vitest'
import enUS from './en-US'
import ptBR from './pt-BR'

function keys(obj: object, prefix = ''): string[] {
  return Object.entries(obj).flatMap(([k, v]) =>
    v && typeof v === 'object' ? keys(v as object, `${prefix}${k}.`) : [`${prefix}${k}`],
  )
}

describe('translations', () => {
  it('both languages have the same keys and no empty text', () => {
    // The public API's operations have pt-BR words only: in en-US the screen shows the schema's own texts.
    const inBoth = (key: string) => !key.startsWith('api.operations.')
    expect(keys(enUS).sort()).toEqual(keys(ptBR).filter(inBoth).sort())
    for (const messages of [ptBR, enUS]) {
      for (const key of keys(messages)) {
        const value = key.split('.').reduce<unknown>((o, k) => (o as Record<string, unknown>)[k], messages)
        expect(typeof value === 'string' && value.trim().length > 0, key).toBe(true)
      }
    }
  })

  it('says one term in en-US: a query, never a lookup or a consultation', () => {
    for (const key of keys(enUS)) {
      const value = key.split('.').reduce<unknown>((o, k) => (o as Record<string, unknown>)[k], enUS)
      // A placeholder's name ({{consultations}}) is no word a reader sees.
      expect(String(value).replace(/\{\{\w+\}\}/g, ''), key).not.toMatch(/\b(lookups?|consult(ations?|ed|ing)?)\b/i)
    }
  })

  it('has every role menu label', () => {
    const labels = ['register', 'users', 'customers', 'suppliers', 'layouts', 'queryTypes', 'queries', 'normalQuery',
      'batchQuery', 'advancedQuery', 'dashboard', 'reports', 'financial', 'balances', 'myAccount', 'api']
    for (const label of labels) {
      expect(ptBR.menu).toHaveProperty(label)
      expect(enUS.menu).toHaveProperty(label)
    }
  })

  it('has the wording the specification asks for', () => {
    expect(enUS.errors.fallback).toBe('An unexpected error has occurred. Please try again later.')
    expect(enUS.errors.invalid_document_type).toBe('Invalid document type')
    expect(enUS.errors.invalid_document).toBe('The informed document is invalid')
    expect(enUS.forbidden.title).toBe('Access not allowed')
    expect(enUS.notFound.back).toBe('Back to Home')
    expect(enUS.query.breadcrumbUnit).toBe('Unitary')
    expect(ptBR.query.breadcrumbUnit).toBe('Unitária')
    expect(enUS.dashboard.unlimited).toBe('Unlimited')
    expect(ptBR.dashboard.unlimited).toBe('Ilimitado')
    expect(ptBR.result.nothingOnRecord).toBe('Nada Consta')
  })
})
