import { CATEGORIES, customerErrors, type Category, type CustomerForm } from './validation'

/** The guided set-up's steps, in order (the done page follows the last). */
export const SETUP_STEPS = ['company', 'permissions', 'brand', 'owner'] as const
export type SetupStep = (typeof SETUP_STEPS)[number]

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
