import { checkDocument, onlyDigits } from '../../lib/documents'
import type { ContactRequestBody } from '../../store/generated/bemteviApi'
import { isContactService } from './services'

/** Spec section 5: letters, digits, dot, underscore, hyphen; @; a domain; a 2 to 4 letter ending. */
export const CONTACT_EMAIL_PATTERN = /^[A-Za-z0-9._-]+@(?:[A-Za-z0-9-]+\.)+[A-Za-z]{2,4}$/

export const NAME_MIN = 3
export const MESSAGE_MIN = 10
export const PHONE_MIN_DIGITS = 10

/** The contact form's fields (as typed: all text), those of the API's request less the domain the page adds. */
export type ContactFormValues = { [K in keyof Omit<ContactRequestBody, 'domain_url'>]-?: string }

export type ContactField = keyof ContactFormValues

/** The contact form's rules (spec section 5): field -> i18n key of the message; empty when valid. */
export function contactErrors(form: ContactFormValues): Partial<Record<ContactField, string>> {
  const errors: Partial<Record<ContactField, string>> = {}
  const name = form.name.trim()
  if (!name) errors.name = 'public.contact.errors.required'
  else if (name.length < NAME_MIN) errors.name = 'public.contact.errors.nameMin'

  if (!form.document.trim()) errors.document = 'public.contact.errors.required'
  else {
    const check = checkDocument(form.document)
    if (!check.ok)
      errors.document = check.reason === 'invalid_document_type' ? 'public.contact.errors.documentType' : 'public.contact.errors.document'
  }

  const email = form.email.trim()
  if (!email) errors.email = 'public.contact.errors.required'
  else if (!CONTACT_EMAIL_PATTERN.test(email)) errors.email = 'public.contact.errors.email'

  // Optional; when given, at least 10 digits (and at most 13, with the 55 prefix beyond 11, as the server checks).
  const phone = onlyDigits(form.phone)
  if (form.phone.trim()) {
    const tooLong = phone.length > 13 || (phone.length > 11 && !phone.startsWith('55'))
    if (phone.length < PHONE_MIN_DIGITS || tooLong) errors.phone = 'public.contact.errors.phone'
  }

  if (!form.service) errors.service = 'public.contact.errors.service'
  else if (!isContactService(form.service)) errors.service = 'public.contact.errors.service'

  const message = form.message.trim()
  if (!message) errors.message = 'public.contact.errors.required'
  else if (message.length < MESSAGE_MIN) errors.message = 'public.contact.errors.messageMin'
  return errors
}

/** Server refusal items ({property, isNotEmpty|isEnum|constraint}) mapped onto the form's fields. */
export function serverFieldErrors(errors: unknown): Partial<Record<ContactField, string>> {
  const out: Partial<Record<ContactField, string>> = {}
  if (!Array.isArray(errors)) return out
  const keys: Record<ContactField, string> = {
    name: 'public.contact.errors.nameMin',
    document: 'public.contact.errors.document',
    email: 'public.contact.errors.email',
    phone: 'public.contact.errors.phone',
    service: 'public.contact.errors.service',
    message: 'public.contact.errors.messageMin',
  }
  for (const item of errors as { property?: string; isNotEmpty?: string }[]) {
    const field = item?.property as ContactField | undefined
    if (!field || !(field in keys) || out[field]) continue
    out[field] = item.isNotEmpty && field !== 'service' ? 'public.contact.errors.required' : keys[field]
  }
  return out
}
