import { api } from '../../store/api'

export type UserRole = 'user' | 'admin' | 'owner' | 'super-admin'
export type UserStatus = 'active' | 'inactive' | 'first-access' | 'archived'

/** The fields of the add/edit form and of the profile screen (specification sections 3 and 5). */
export interface UserDetailsForm {
  name: string
  cpf: string
  functions: string
  phone: string
  socialProfile: string
  biography: string
  userName: string
}

export interface UserForm extends UserDetailsForm {
  email: string
  role: UserRole
}

export interface UserSummary {
  id: string
  uniqueKey: string
  groupId: string
  name: string
  email: string
  role: UserRole
  status: UserStatus
  createdAt: string | null
  cpf: string | null
  phone: string | null
  functions: string | null
  hasPhoto: boolean
}

export interface UserDetail extends UserSummary {
  socialProfile: string | null
  biography: string | null
  userName: string | null
  photoDigest: string | null
  preferences: Record<string, boolean>
  passwordChangedAt: string | null
  groupName: string | null
  groupUniqueKey: string | null
}

export interface UserList {
  data: UserSummary[]
  total: number
  page: number
  pageSize: number
}

export interface AddedUser {
  data: { id: string; email: string; generatedPassword: string }
  position: number
}

export interface Position {
  position: number
}

/** Empty optional texts go to the API as null. */
export function detailsBody(form: UserDetailsForm) {
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

const positionParam = (position?: number | null) =>
  position !== null && position !== undefined ? { position } : {}

export const usersApi = api.enhanceEndpoints({ addTagTypes: ['Users', 'Me'] }).injectEndpoints({
  endpoints: (build) => ({
    listUsers: build.query<
      UserList,
      { groupId?: string; search?: string; page: number; pageSize: number; position?: number | null }
    >({
      query: ({ groupId, search, page, pageSize, position }) => ({
        url: 'users',
        params: {
          ...(groupId ? { group_id: groupId } : {}),
          ...(search ? { search } : {}),
          page,
          page_size: pageSize,
          ...positionParam(position),
        },
      }),
      providesTags: ['Users'],
    }),
    getUser: build.query<{ data: UserDetail }, { id: string; position?: number | null }>({
      query: ({ id, position }) => ({ url: `users/${id}`, params: positionParam(position) }),
      providesTags: ['Users'],
    }),
    addUser: build.mutation<AddedUser, UserForm & { groupId?: string }>({
      query: ({ email, role, groupId, ...details }) => ({
        url: 'users',
        method: 'POST',
        body: { ...detailsBody(details), email: email.trim(), role, ...(groupId ? { groupId } : {}) },
      }),
      invalidatesTags: ['Users'],
    }),
    editUser: build.mutation<Position, { id: string; form: UserDetailsForm; role: UserRole }>({
      query: ({ id, form, role }) => ({ url: `users/${id}`, method: 'PUT', body: { ...detailsBody(form), role } }),
      invalidatesTags: ['Users', 'Me'],
    }),
    setUserActive: build.mutation<Position, { id: string; active: boolean }>({
      query: ({ id, active }) => ({ url: `users/${id}/status`, method: 'POST', body: { active } }),
      invalidatesTags: ['Users'],
    }),
    archiveUser: build.mutation<Position, { id: string }>({
      query: ({ id }) => ({ url: `users/${id}`, method: 'DELETE' }),
      invalidatesTags: ['Users'],
    }),
  }),
})

export const {
  useListUsersQuery,
  useGetUserQuery,
  useAddUserMutation,
  useEditUserMutation,
  useSetUserActiveMutation,
  useArchiveUserMutation,
} = usersApi
