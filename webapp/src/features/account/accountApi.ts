import { api } from '../../store/api'
import { detailsBody, type Position, type UserDetail, type UserDetailsForm } from '../users/usersApi'
import type { PasswordForm } from '../users/validation'

export interface SessionRow {
  id: string
  openedAt: string | null
  expiresAt: string | null
  current: boolean
}

const positionParam = (position?: number | null) =>
  position !== null && position !== undefined ? { position } : {}

export const accountApi = api.enhanceEndpoints({ addTagTypes: ['Me', 'Users', 'Sessions'] }).injectEndpoints({
  endpoints: (build) => ({
    getMe: build.query<{ data: UserDetail }, { position?: number | null }>({
      query: ({ position }) => ({ url: 'me', params: positionParam(position) }),
      providesTags: ['Me'],
    }),
    editMyProfile: build.mutation<Position, UserDetailsForm>({
      query: (form) => ({ url: 'me/profile', method: 'PUT', body: detailsBody(form) }),
      invalidatesTags: ['Me', 'Users'],
    }),
    /** The image's bytes as the body; the server decodes, checks and resizes it. */
    uploadPhoto: build.mutation<Position, { file: Blob; userId?: string }>({
      query: ({ file, userId }) => ({
        url: userId ? `users/${userId}/photo` : 'me/photo',
        method: 'PUT',
        body: file,
        headers: { 'Content-Type': file.type || 'application/octet-stream' },
      }),
      invalidatesTags: ['Me', 'Users'],
    }),
    changeMyPassword: build.mutation<Position, PasswordForm>({
      query: (body) => ({ url: 'me/password', method: 'POST', body }),
    }),
    changePreferences: build.mutation<Position, Record<string, boolean>>({
      query: (preferences) => ({ url: 'me/preferences', method: 'PUT', body: { preferences } }),
      invalidatesTags: ['Me'],
    }),
    mySessions: build.query<{ data: SessionRow[] }, { position?: number | null }>({
      query: ({ position }) => ({ url: 'me/sessions', params: positionParam(position) }),
      providesTags: ['Sessions'],
    }),
    signOutOthers: build.mutation<Position, void>({
      query: () => ({ url: 'me/sessions/sign-out-others', method: 'POST' }),
      invalidatesTags: ['Sessions'],
    }),
  }),
})

export const {
  useGetMeQuery,
  useEditMyProfileMutation,
  useUploadPhotoMutation,
  useChangeMyPasswordMutation,
  useChangePreferencesMutation,
  useMySessionsQuery,
  useSignOutOthersMutation,
} = accountApi
