import type { TFunction } from 'i18next'
import { errorInfo, type AnyError } from '../lib/errors'

/**
 * Text for an error on screen: the error code's translation when the app knows it,
 * else the message chosen by the spec's rule, else the translated fallback.
 */
export function errorText(err: AnyError, t: TFunction, i18nExists: (key: string) => boolean): string {
  const info = errorInfo(err)
  if (info.code && i18nExists(`errors.${info.code}`)) return t(`errors.${info.code}`)
  if (err && 'status' in err && err.status === 'FETCH_ERROR') return t('errors.network')
  return info.message || t('errors.fallback')
}
