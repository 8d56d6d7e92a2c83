import type { FetchBaseQueryError } from '@reduxjs/toolkit/query'
import type { SerializedError } from '@reduxjs/toolkit'
import type { ApiErrorBody } from '../types/api'

export const FALLBACK_ERROR_MESSAGE = 'An unexpected error has occurred. Please try again later.'

export type AnyError = FetchBaseQueryError | SerializedError | undefined | null

export interface ErrorInfo {
  status: number | null
  code: string | null
  /** Message picked by the rule of spec section 8; null means "use the fallback". */
  message: string | null
  /** Values the code's text names (too_many_attempts: minutes; text_too_long: limit; image_wrong_size: the size). */
  values?: ErrorValues
}

export interface ErrorValues {
  minutes?: number
  limit?: number
  expectedWidth?: number
  expectedHeight?: number
}

function isFetchError(err: AnyError): err is FetchBaseQueryError {
  return !!err && typeof err === 'object' && 'status' in err
}

function asBody(data: unknown): ApiErrorBody | null {
  return data && typeof data === 'object' ? (data as ApiErrorBody) : null
}

/**
 * Message choice (spec section 8): on 401 the server message, else the fallback;
 * if the response has an `errors` list, the first item's isNotEmpty or isEnum text,
 * else the fallback; else the response message; else the error's own message;
 * else the fallback (null here).
 */
export function errorInfo(err: AnyError): ErrorInfo {
  if (!err) return { status: null, code: null, message: null }
  if (!isFetchError(err)) return { status: null, code: err.code ?? null, message: err.message || null }
  const status = typeof err.status === 'number' ? err.status : null
  const body = asBody(err.data)
  const code = body?.code ?? null
  const values = valuesOf(body)
  if (status === 401) return { status, code, message: body?.message || null, ...values }
  if (body && Array.isArray(body.errors) && body.errors.length > 0) {
    const first = body.errors[0] ?? {}
    return { status, code, message: first.isNotEmpty || first.isEnum || null, ...values }
  }
  if (body?.message) return { status, code, message: body.message, ...values }
  if ('error' in err && err.error) return { status, code, message: err.error, ...values }
  return { status, code, message: null, ...values }
}

function valuesOf(body: ApiErrorBody | null): { values?: ErrorValues } {
  const values: ErrorValues = {}
  if (typeof body?.minutes === 'number') values.minutes = body.minutes
  if (typeof body?.limit === 'number') values.limit = body.limit
  if (typeof body?.expectedWidth === 'number') values.expectedWidth = body.expectedWidth
  if (typeof body?.expectedHeight === 'number') values.expectedHeight = body.expectedHeight
  return Object.keys(values).length > 0 ? { values } : {}
}
