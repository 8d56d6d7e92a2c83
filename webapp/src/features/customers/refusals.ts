import type { TFunction } from 'i18next'
import { errorText } from '../../components/errorText'
import { errorInfo, type AnyError } from '../../lib/errors'

/** The form field a refusal names (a duplicate's), when it is one the form shows. */
export function refusedField(error: AnyError): string | null {
  const field = (error as { data?: { field?: unknown } } | undefined)?.data?.field
  return typeof field === 'string' ? field : null
}

/** A refused save in the reader's language: the customer screens' own wording of a duplicate or a known code first. */
export function customerServerText(error: AnyError, t: TFunction, exists: (key: string) => boolean): string {
  const code = errorInfo(error).code
  const field = refusedField(error)
  if (code === 'duplicate' && field && exists(`customers.duplicates.${field}`)) return t(`customers.duplicates.${field}`)
  if (code && exists(`customers.serverErrors.${code}`)) return t(`customers.serverErrors.${code}`)
  return errorText(error, t, exists)
}
