import type { FetchBaseQueryError } from '@reduxjs/toolkit/query'
import { describe, expect, it } from 'vitest'
import i18n, { LOCALES } from '.'
import { errorText } from '../components/errorText'
import { ERROR_CODES } from '../store/generated/errorCodes'

const http = (status: number, data: unknown): FetchBaseQueryError => ({ status, data })

function textIn(lng: string, err: FetchBaseQueryError): string {
  const t = i18n.getFixedT(lng)
  return errorText(err, t, (key) => i18n.exists(key, { lng }))
}

describe('every error code the API may answer (its OpenAPI ErrorCode, generated)', () => {
  it('lists the catalogue', () => {
    expect(ERROR_CODES.length).toBeGreaterThan(30)
    expect(ERROR_CODES).toContain('not_enough_credits')
    expect(ERROR_CODES).toContain('http_404')
  })

  it.each(LOCALES)('has its own text in %s', (lng) => {
    for (const code of ERROR_CODES) {
      const text: unknown = i18n.getResource(lng, 'translation', `errors.${code}`)
      expect(typeof text === 'string' && text.trim().length > 0, `${lng}: errors.${code}`).toBe(true)
    }
  })

  it('is shown in the reader’s language, not in the server’s English', () => {
    for (const code of ERROR_CODES) {
      const answer = http(400, { statusCode: 400, code, message: `server text of ${code}`, minutes: 15, limit: 200, expectedWidth: 208, expectedHeight: 68 })
      for (const lng of LOCALES) {
        const text = textIn(lng, answer)
        expect(text, `${lng}: ${code}`).not.toContain('server text')
        expect(text, `${lng}: ${code}`).not.toContain('{{')
      }
    }
  })
})

describe('a server error on a Portuguese screen', () => {
  it.each<[string, FetchBaseQueryError, string]>([
    ['not enough credits', http(402, { statusCode: 402, code: 'not_enough_credits', message: 'Not enough manual query credits' }), 'Créditos de consulta unitária insuficientes'],
    ['a closed session', http(401, { statusCode: 401, code: 'unauthorized', message: 'Unauthorized' }), 'Não autorizado'],
    ['an inactive group', http(401, { statusCode: 401, code: 'group_inactive', message: 'Group is inactive' }), 'O grupo está inativo'],
    ['too many attempts', http(429, { statusCode: 429, code: 'too_many_attempts', message: 'Too many attempts, try again in 15 minutes', minutes: 15 }), 'Muitas tentativas, tente novamente em 15 minutos'],
    ['a text over its limit', http(422, { statusCode: 422, code: 'text_too_long', field: 'contactAddress', message: 'The text is too long: at most 200 characters', limit: 200 }), 'O texto é longo demais (no máximo 200 caracteres)'],
    ['a validation error', http(400, { statusCode: 400, code: 'invalid_data', message: 'email should not be empty', errors: [{ property: 'email', isNotEmpty: 'email should not be empty' }] }), 'Estrutura de dados inválida: campos obrigatórios ausentes'],
  ])('%s', (_name, answer, expected) => {
    expect(textIn('pt-BR', answer)).toBe(expected)
  })

  it('keeps the server’s message for a code the app does not know (an older app)', () => {
    expect(textIn('pt-BR', http(400, { statusCode: 400, code: 'from_a_newer_server', message: 'Batch query is disabled' }))).toBe(
      'Batch query is disabled',
    )
  })
})
