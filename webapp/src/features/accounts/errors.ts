import type { TFunction } from 'i18next'
import { errorText } from '../../components/errorText'
import type { AnyError } from '../../lib/errors'

/** An account screen's error: a duplicate says which value is taken, else the shared rule. */
export function accountErrorText(err: AnyError, t: TFunction, exists: (key: string) => boolean): string {
  if (err && 'status' in err && err.data && typeof err.data === 'object') {
    const body = err.data as { code?: string; field?: string }
    if (body.code === 'duplicate' && body.field && exists(`accounts.duplicate.${body.field}`))
      return t(`accounts.duplicate.${body.field}`)
  }
  return errorText(err, t, exists)
}
