import { maskCnpj, maskPhone } from '../../lib/masks'
import { isValidCnpj, onlyDigits } from '../../lib/documents'
import { EMAIL_PATTERN } from '../../lib/documents'
import type { CustomerDetail, CustomerEditRequest, CustomerQuantities, CustomerRequest, Toggles } from '../../store/generated/bemteviApi'

/** The registration form: the API's request, with every category's quantity filled in. */
export type CustomerForm = CustomerRequest & { quantities: Required<CustomerQuantities> }

/** The credit categories, in the order the forms show them and the set-up grants them. */
export const CATEGORIES = ['unit', 'batch', 'advanced', 'api'] as const
export type Category = (typeof CATEGORIES)[number]

export const NO_CREDITS: Record<Category, number> = { unit: 0, batch: 0, advanced: 0, api: 0 }

/** A new customer's form, on both the one-page form and the guided set-up. */
export const EMPTY_CUSTOMER: CustomerForm = {
  type: 'company',
  cnpj: '',
  companyName: '',
  tradeName: '',
  personInCharge: '',
  phone: '',
  email: '',
  seller: null,
  defaultQuery: true,
  consultProtest: false,
  quantities: NO_CREDITS,
  // Filled with every type the signed-in group may give once the catalogue answers.
  enabledQueryTypes: [],
  enabledLayouts: [],
  panelAccess: true,
  apiAccess: false,
  whiteLabelUrl: null,
}

/** The customer form's rules (specification section 5): field -> i18n key of the message. */
export function customerErrors(form: CustomerForm): Record<string, string> {
  const errors: Record<string, string> = {}
  const required: (keyof CustomerRequest)[] = ['cnpj', 'companyName', 'tradeName', 'personInCharge', 'phone', 'email']
  for (const field of required) {
    if (!String(form[field] ?? '').trim()) errors[field] = 'customers.errors.required'
  }
  if (!errors.cnpj && !isValidCnpj(form.cnpj)) errors.cnpj = 'customers.errors.cnpj'
  if (!errors.phone && onlyDigits(form.phone).length < 10) errors.phone = 'customers.errors.phone'
  if (!errors.email && !EMAIL_PATTERN.test(form.email.trim())) errors.email = 'customers.errors.email'
  if (form.enabledQueryTypes.length === 0) errors.enabledQueryTypes = 'customers.errors.queryTypes'
  if (!form.panelAccess && !form.apiAccess) errors.access = 'customers.errors.access'
  if (form.type === 'white-label' && !(form.whiteLabelUrl ?? '').trim()) errors.whiteLabelUrl = 'customers.errors.required'
  for (const [category, amount] of Object.entries(form.quantities)) {
    if (!Number.isInteger(amount) || amount < 0) errors[`quantities.${category}`] = 'customers.errors.quantity'
  }
  return errors
}

/** The form's values from a customer's detail (edit mode). */
export function formOf(detail: CustomerDetail): CustomerForm {
  return {
    type: detail.type as CustomerRequest['type'],
    cnpj: maskCnpj(detail.cnpj ?? ''),
    companyName: detail.companyName,
    tradeName: detail.tradeName ?? '',
    personInCharge: detail.personInCharge ?? '',
    phone: maskPhone(detail.phone ?? ''),
    email: detail.email ?? '',
    seller: detail.seller ?? null,
    defaultQuery: detail.defaultQuery ?? true,
    consultProtest: detail.consultProtest ?? false,
    quantities: NO_CREDITS,
    enabledQueryTypes: detail.enabledQueryTypes,
    enabledLayouts: detail.enabledLayouts,
    panelAccess: detail.panelAccess ?? true,
    apiAccess: detail.apiAccess ?? false,
    whiteLabelUrl: detail.domainUrl,
  }
}

/** The edit's body: the form without the credits (those move by grants) and with the customer's toggles. */
export function editRequestOf(form: CustomerForm, toggles: Toggles): CustomerEditRequest {
  const { quantities: _given, ...rest } = form
  void _given
  return { ...rest, toggles }
}
