import { isValidCpf, onlyDigits } from '../documents'
import { EMAIL_PATTERN } from '../documents'
import type { ChangePasswordRequest } from '../../store/generated/bemteviApi'
import type { UserDetailsForm, UserForm } from './details'

/** "under 1 MB" (specification sections 3 and 9). */
export const PHOTO_MAX_BYTES = 1024 * 1024
export const PHOTO_TYPES = ['image/png', 'image/jpeg', 'image/webp']
export const PASSWORD_MIN_LENGTH = 8

/** Profile rules (section 5): full name, CPF, functions required; field -> i18n key of the message. */
export function detailsErrors(form: UserDetailsForm): Record<string, string> {
  const errors: Record<string, string> = {}
  if (!form.name.trim()) errors.name = 'users.errors.required'
  else if (form.name.trim().length < 3) errors.name = 'users.errors.nameShort'
  if (!form.cpf.trim()) errors.cpf = 'users.errors.required'
  else if (!isValidCpf(form.cpf)) errors.cpf = 'users.errors.cpf'
  if (!form.functions.trim()) errors.functions = 'users.errors.required'
  if (form.phone.trim() && onlyDigits(form.phone).length < 10) errors.phone = 'users.errors.phone'
  return errors
}

/** The users form: the profile rules plus a valid e-mail (when adding) and a role. */
export function userErrors(form: UserForm, adding: boolean): Record<string, string> {
  const errors = detailsErrors(form)
  if (adding) {
    if (!form.email.trim()) errors.email = 'users.errors.required'
    else if (!EMAIL_PATTERN.test(form.email.trim())) errors.email = 'users.errors.email'
  }
  if (!form.role) errors.role = 'users.errors.required'
  return errors
}

/** Section 5: at least 8 characters with a digit, a special character, a lower- and an upper-case letter. */
export function isStrongPassword(value: string): boolean {
  return (
    value.length >= PASSWORD_MIN_LENGTH &&
    /\d/.test(value) &&
    /[^\p{L}\p{N}\s]/u.test(value) &&
    /\p{Ll}/u.test(value) &&
    /\p{Lu}/u.test(value)
  )
}

export type PasswordForm = ChangePasswordRequest

export function passwordErrors(form: PasswordForm): Record<string, string> {
  const errors: Record<string, string> = {}
  if (!form.currentPassword) errors.currentPassword = 'users.errors.required'
  if (!form.newPassword) errors.newPassword = 'users.errors.required'
  else if (!isStrongPassword(form.newPassword)) errors.newPassword = 'users.errors.weakPassword'
  if (!form.confirmation) errors.confirmation = 'users.errors.required'
  else if (!errors.newPassword && form.confirmation !== form.newPassword) errors.confirmation = 'users.errors.mismatch'
  return errors
}

/** A photo the server would refuse: too big, or not PNG/JPEG/WebP (the server decodes it to be sure). */
export function photoError(file: { size: number; type: string }): string | null {
  if (file.size >= PHOTO_MAX_BYTES) return 'users.errors.photoSize'
  if (!PHOTO_TYPES.includes(file.type)) return 'users.errors.photoType'
  return null
}
