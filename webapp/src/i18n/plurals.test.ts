import { describe, expect, it } from 'vitest'
import i18n from '.'
import ptBR from './pt-BR'
import enUS from './en-US'

/** Every text of a catalogue with its key path. */
function texts(node: unknown, path = ''): [string, string][] {
  if (typeof node === 'string') return [[path, node]]
  if (node && typeof node === 'object') return Object.entries(node).flatMap(([k, v]) => texts(v, path ? `${path}.${k}` : k))
  return []
}

describe('plural texts', () => {
  it.each([
    ['pt-BR', ptBR],
    ['en-US', enUS],
  ])('%s has no "(s)" or "(es)" for a count: i18next chooses the form', (_lng, catalogue) => {
    const hedged = texts(catalogue).filter(([, text]) => /\w\((s|es)\)/.test(text.replace(/https?\(s\)/g, '')))
    expect(hedged).toEqual([])
  })

  it.each([
    ['pt-BR', 'users.total', 1, '1 usuário'],
    ['pt-BR', 'users.total', 2, '2 usuários'],
    ['pt-BR', 'users.total', 0, 'Nenhum usuário'],
    ['en-US', 'users.total', 0, 'No users'],
    ['en-US', 'users.total', 1, '1 user'],
    ['en-US', 'users.total', 3, '3 users'],
    ['pt-BR', 'dashboard.period.days', 1, '1 dia'],
    ['pt-BR', 'dashboard.consultationsCount', 0, 'nenhuma consulta'],
    ['pt-BR', 'dashboard.consultationsCount', 1, '1 consulta'],
    ['en-US', 'dashboard.creditsCount', 0, 'no credits'],
    ['en-US', 'dashboard.period.days', 7, '7 days'],
    ['pt-BR', 'catalogue.layouts.lineLength', 1, '1 caractere'],
    ['pt-BR', 'reports.totals.consultations', 0, '0 consultas'],
    ['pt-BR', 'reports.totals.notFound', 1, '1 não encontrada'],
    ['en-US', 'reports.totals.consultations', 1, '1 query'],
    ['en-US', 'reports.totals.credits', 1, '1 credit'],
  ])('%s %s with %i reads "%s"', (lng, key, count, expected) => {
    expect(i18n.getFixedT(lng)(key, { count, n: count })).toBe(expected)
  })

  it.each([
    ['pt-BR', 1, '3 de 4 · 1 encontrado'],
    ['pt-BR', 2, '3 de 4 · 2 encontrados'],
    ['en-US', 1, '3 of 4 · 1 found'],
  ])('%s batch progress with %i found reads "%s"', (lng, found, expected) => {
    expect(i18n.getFixedT(lng)('batches.list.progressText', { done: 3, records: 4, found, count: found })).toBe(expected)
  })
})
