import type { TFunction } from 'i18next'
import { errorText } from '../../components/errorText'
import type { AnyError } from '../../lib/errors'

/** An account screen's error: "try again in N minutes" with its N, else the shared rule. */
export function accountErrorText(err: AnyError, t: TFunction, exists: (key: string) => boolean): string {
  if (err && 'status' in err && err.data && typeof err.data === 'object') {
    const body = err.data as { code?: string; minutes?: number; field?: string }
    if (body.code === 'too_many_attempts') return t('accounts.tooManyAttempts', { minutes: body.minutes ?? 15 })
    if (body.code === 'duplicate' && body.field && exists(`accounts.duplicate.${body.field}`))
      return t(`accounts.duplicate.${body.field}`)
    if (body.code && exists(`accounts.errors.${body.code}`)) return t(`accounts.errors.${body.code}`)
  }
  return errorText(err, t, exists)
}
