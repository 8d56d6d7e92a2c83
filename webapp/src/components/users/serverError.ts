import type { TFunction } from 'i18next'
import { errorText } from '../errorText'
import { errorInfo, type AnyError } from '../../lib/errors'

/** A failed users/account call in the reader's language: our codes first, then the shared rule. */
export function userErrorText(err: unknown, t: TFunction, exists: (key: string) => boolean): string {
  const info = errorInfo(err as AnyError)
  if (info.code && exists(`users.serverErrors.${info.code}`)) return t(`users.serverErrors.${info.code}`)
  return errorText(err as AnyError, t, exists)
}
