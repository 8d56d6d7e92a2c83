/** Registration and password rules of spec section 5, as the server checks them too. */
import type { CreateAccountRequest } from '../../store/generated/bemteviApi'

// Letters, digits, dot, underscore and hyphen, then @, a domain and a 2 to 4 letter ending.
export const STRICT_EMAIL = /^[A-Za-z0-9._-]+@([A-Za-z0-9-]+\.)+[A-Za-z]{2,4}$/

/** At least 8 characters with a digit, a special character, a lower-case and an upper-case letter. */
export function passwordIsStrong(value: string): boolean {
  return (
    value.length >= 8 &&
    /\d/.test(value) &&
    /[^\p{L}\p{N}\s]/u.test(value) &&
    /\p{Ll}/u.test(value) &&
    /\p{Lu}/u.test(value)
  )
}

/** 10 to 13 digits; 12 or 13 only with the country prefix 55. */
export function phoneIsValid(value: string): boolean {
  const digits = value.replace(/\D/g, '')
  if (digits.length < 10 || digits.length > 13) return false
  return digits.length <= 11 || digits.startsWith('55')
}

export interface PasswordErrors {
  password?: string
  confirmation?: string
}

/** i18n keys (namespace `accounts`) of what is wrong with a new password and its confirmation. */
export function newPasswordErrors(password: string, confirmation: string): PasswordErrors {
  const errors: PasswordErrors = {}
  if (!password) errors.password = 'accounts.required'
  else if (!passwordIsStrong(password)) errors.password = 'accounts.weakPassword'
  if (!confirmation) errors.confirmation = 'accounts.required'
  else if (password && confirmation !== password) errors.confirmation = 'accounts.passwordsDoNotMatch'
  return errors
}

/** The registration form: what the API takes, less what the page adds (domain and language). */
export type SignUpValues = Omit<CreateAccountRequest, 'domain_url' | 'locale'>

export type SignUpErrors = Partial<Record<keyof SignUpValues, string>>

export function signUpErrors(v: SignUpValues): SignUpErrors {
  const errors: SignUpErrors = {}
  if (!v.name.trim()) errors.name = 'accounts.required'
  if (!v.lastName.trim()) errors.lastName = 'accounts.required'
  if (!v.email.trim()) errors.email = 'accounts.required'
  else if (!STRICT_EMAIL.test(v.email.trim())) errors.email = 'accounts.invalidEmail'
  if (!v.companyName.trim()) errors.companyName = 'accounts.required'
  if (!v.phone.trim()) errors.phone = 'accounts.required'
  else if (!phoneIsValid(v.phone)) errors.phone = 'accounts.invalidPhone'
  Object.assign(errors, newPasswordErrors(v.password, v.confirmation))
  if (!v.acceptTerms) errors.acceptTerms = 'accounts.termsRequired'
  return errors
}

export const CODE_DIGITS = 6

/** Digits only, at most six: what a code field keeps of whatever is typed or pasted ("12 34-56" -> "123456"). */
export function codeDigits(value: string): string {
  return value.replace(/\D/g, '').slice(0, CODE_DIGITS)
}
