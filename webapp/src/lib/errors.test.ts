import { describe, expect, it } from 'vitest'
import type { FetchBaseQueryError } from '@reduxjs/toolkit/query'
import { errorInfo, type AnyError } from './errors'

const http = (status: number, data: unknown): FetchBaseQueryError => ({ status, data })

describe('error message choice (spec section 8)', () => {
  it.each<[string, AnyError, string | null]>([
    ['401 with server message', http(401, { statusCode: 401, message: 'Expired token', code: 'expired_token' }), 'Expired token'],
    ['401 without message -> fallback', http(401, {}), null],
    ['401 ignores errors list', http(401, { message: 'Unauthorized', errors: [{ isNotEmpty: 'x' }] }), 'Unauthorized'],
    ['errors list: isNotEmpty', http(400, { message: 'Bad', errors: [{ property: 'email', isNotEmpty: 'email should not be empty' }] }), 'email should not be empty'],
    ['errors list: isEnum', http(400, { message: 'Bad', errors: [{ property: 'type', isEnum: 'type must be a valid enum' }, { isNotEmpty: 'second' }] }), 'type must be a valid enum'],
    ['errors list without text -> fallback', http(400, { message: 'Bad', errors: [{ property: 'x' }] }), null],
    ['empty errors list -> message', http(400, { message: 'Bad request', errors: [] }), 'Bad request'],
    ['message only', http(402, { statusCode: 402, message: 'Not enough manual query credits', code: 'not_enough_credits' }), 'Not enough manual query credits'],
    ['no body -> fallback', http(500, null), null],
    ['non-JSON body -> fallback', http(502, '<html>'), null],
    ['network error -> its own message', { status: 'FETCH_ERROR', error: 'TypeError: Failed to fetch' }, 'TypeError: Failed to fetch'],
    ['serialized error', { name: 'Error', message: 'boom' }, 'boom'],
    ['nothing', undefined, null],
  ])('%s', (_name, err, expected) => {
    expect(errorInfo(err).message).toBe(expected)
  })

  it('keeps status and code', () => {
    expect(errorInfo(http(402, { code: 'not_enough_credits', message: 'm' }))).toEqual({
      status: 402,
      code: 'not_enough_credits',
      message: 'm',
    })
  })
})
