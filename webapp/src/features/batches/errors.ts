import type { TFunction } from 'i18next'
import { errorText } from '../../components/errorText'
import { errorInfo, type AnyError } from '../../lib/errors'

/** A failed call's text: the batch codes from this feature's texts, the rest as every screen says them. */
export function batchErrorText(err: AnyError, t: TFunction, exists: (key: string) => boolean): string {
  const { code } = errorInfo(err)
  if (code && exists(`batches.errors.${code}`)) return t(`batches.errors.${code}`)
  return errorText(err, t, exists)
}
