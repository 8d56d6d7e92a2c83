import type { TFunction } from 'i18next'
import { errorText } from '../../components/errorText'
import { errorInfo, type AnyError } from '../../lib/errors'
import { customerErrors, type CustomerForm } from './validation'

/** The guided set-up's steps, in order (the done page follows the last). */
export const SETUP_STEPS = ['company', 'permissions', 'brand', 'owner'] as const
export type SetupStep = (typeof SETUP_STEPS)[number]

export const CATEGORIES = ['unit', 'batch', 'advanced', 'api'] as const
export type Category = (typeof CATEGORIES)[number]

/** The fields the company step asks; every other rule of the customer form is the permissions step's. */
const COMPANY_FIELDS = new Set(['type', 'cnpj', 'companyName', 'tradeName', 'personInCharge', 'phone', 'email', 'seller', 'whiteLabelUrl'])

/** The customer form's rules that hold up one step: field -> i18n key of the message. */
export function stepErrors(step: 'company' | 'permissions', form: CustomerForm): Record<string, string> {
  const found = Object.entries(customerErrors(form))
  return Object.fromEntries(found.filter(([field]) => COMPANY_FIELDS.has(field) === (step === 'company')))
}

/** The grants the permissions step makes, one per category with credits to give, in the categories' order. */
export function grantsOf(quantities: Record<Category, number>): { category: Category; amount: number }[] {
  return CATEGORIES.filter((c) => quantities[c] > 0).map((category) => ({ category, amount: quantities[category] }))
}

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
