import type { TFunction } from 'i18next'
import { errorInfo, type AnyError, type ErrorValues } from '../lib/errors'

/** An error as the screens keep it: the API's code, the message the spec's rule chose, its values. */
export interface ShownError {
  code: string | null
  message: string | null
  values?: ErrorValues
}

/**
 * What an error says on screen: its code's text in the reader's language (every code the API
 * answers has one: i18n/serverErrors.ts), else the message the spec's rule chose (a code this
 * app does not know yet), else the translated fallback.
 */
export function shownErrorText(error: ShownError, t: TFunction, i18nExists: (key: string) => boolean): string {
  if (error.code && i18nExists(`errors.${error.code}`)) return t(`errors.${error.code}`, { ...error.values })
  return error.message || t('errors.fallback')
}

/** Text for a failed call on screen (shownErrorText; a call that never reached the server: network). */
export function errorText(err: AnyError, t: TFunction, i18nExists: (key: string) => boolean): string {
  const info = errorInfo(err)
  if (!info.code && err && 'status' in err && err.status === 'FETCH_ERROR') return t('errors.network')
  return shownErrorText(info, t, i18nExists)
}
