import type { UserDetailsForm } from './usersApi'

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
export function detailsOf(user: {
  name: string
  cpf: string | null
  functions: string | null
  phone: string | null
  socialProfile?: string | null
  biography?: string | null
  userName?: string | null
}): UserDetailsForm {
  return {
    name: user.name,
    cpf: user.cpf ?? '',
    functions: user.functions ?? '',
    phone: user.phone ?? '',
    socialProfile: user.socialProfile ?? '',
    biography: user.biography ?? '',
    userName: user.userName ?? '',
  }
}
