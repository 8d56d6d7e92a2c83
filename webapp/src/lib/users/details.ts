import { maskCpf, maskPhone } from '../masks'
import type { UserDetailsRequest, UserSummary } from '../../store/generated/bemteviApi'

export type UserRole = UserSummary['role']

/** The profile fields as the add/edit form and the profile screen hold them (specification sections 3 and 5). */
export type UserDetailsForm = { [K in keyof Required<UserDetailsRequest>]: string }

/** The users form: the profile fields plus e-mail and role. */
export type UserForm = UserDetailsForm & { email: string; role: UserRole }

export const EMPTY_DETAILS: UserDetailsForm = {
  name: '',
  cpf: '',
  functions: '',
  phone: '',
  socialProfile: '',
  biography: '',
  userName: '',
}

/** A detail row from the API as form values. */
export function detailsOf(user: { name: string } & { [K in Exclude<keyof UserDetailsForm, 'name'>]?: string | null }): UserDetailsForm {
  return {
    name: user.name,
    cpf: maskCpf(user.cpf ?? ''),
    functions: user.functions ?? '',
    phone: maskPhone(user.phone ?? ''),
    socialProfile: user.socialProfile ?? '',
    biography: user.biography ?? '',
    userName: user.userName ?? '',
  }
}

/** The form as the API takes it: texts trimmed, empty optional ones as null. */
export function detailsBody(form: UserDetailsForm): UserDetailsRequest {
  const optional = (value: string) => (value.trim() ? value.trim() : null)
  return {
    name: form.name.trim(),
    cpf: form.cpf.trim(),
    functions: form.functions.trim(),
    phone: optional(form.phone),
    socialProfile: optional(form.socialProfile),
    biography: optional(form.biography),
    userName: optional(form.userName),
  }
}
