import {
  createApi,
  fetchBaseQuery,
  type BaseQueryFn,
  type FetchArgs,
  type FetchBaseQueryError,
} from '@reduxjs/toolkit/query/react'
import type {
  ConsultationRequest,
  ConsultationResponse,
  DashboardResponse,
  GroupPublicData,
  GroupPublicDataRequest,
  LoginRequest,
  LoginResponse,
  LogoutRequest,
  MessageResponse,
  UserRolesRequest,
  UserRolesResponse,
} from '../types/api'
import { errorInfo } from '../lib/errors'
import type { AuthState } from './authSlice'
import { loadingReset, setForbidden, showWarning } from './uiSlice'

const rawBaseQuery = fetchBaseQuery({
  baseUrl: '/api',
  prepareHeaders: (headers, { getState }) => {
    const token = (getState() as { auth: AuthState }).auth.authToken
    if (token) headers.set('Authorization', `Bearer ${token}`)
    return headers
  },
})

/** Endpoints whose errors the calling screen handles alone (no global Warning dialog). */
const SELF_HANDLED = new Set(['login', 'logout'])

/**
 * Shared error handling (spec section 8): any error hides the loading overlay; a 401 on a signed-in call opens the Warning
 * dialog with the server's message (OK clears the session and goes to /login);
 * access_denied sends the user to /error-forbidden. Other errors go back to the caller.
 */
/**
 * Read-your-writes: once a command answered with an event-store `position`, every read (GET)
 * carries the highest one seen, so the read model answers only when it has caught up with it.
 * A call that names its own `position` keeps it.
 */
export function withPosition(args: string | FetchArgs, position: number | null | undefined): string | FetchArgs {
  if (position === null || position === undefined) return args
  const request: FetchArgs = typeof args === 'string' ? { url: args } : args
  if (request.method && request.method.toUpperCase() !== 'GET') return args
  const params = (request.params ?? {}) as Record<string, unknown>
  if (params.position !== undefined && params.position !== null) return args
  if (/[?&]position=/.test(request.url)) return args
  return { ...request, params: { ...params, position } }
}

export const baseQuery: BaseQueryFn<string | FetchArgs, unknown, FetchBaseQueryError> = async (
  args,
  api,
  extraOptions,
) => {
  const lastPosition = (api.getState() as { session?: { lastPosition: number | null } }).session?.lastPosition
  const result = await rawBaseQuery(withPosition(args, lastPosition), api, extraOptions)
  if (result.error) api.dispatch(loadingReset())
  if (result.error && !SELF_HANDLED.has(api.endpoint)) {
    const signedIn = !!(api.getState() as { auth: AuthState }).auth.authToken
    const info = errorInfo(result.error)
    if (info.status === 401 && signedIn) api.dispatch(showWarning(info.message))
    else if (info.status === 403 && info.code === 'access_denied') api.dispatch(setForbidden(true))
  }
  return result
}

export const api = createApi({
  reducerPath: 'api',
  baseQuery,
  tagTypes: ['Dashboard', 'Roles', 'Group'],
  endpoints: (build) => ({
    login: build.mutation<LoginResponse, LoginRequest>({
      query: (body) => ({ url: 'auth/auth', method: 'POST', body }),
    }),
    logout: build.mutation<MessageResponse, LogoutRequest>({
      query: (body) => ({ url: 'auth/auth/logout', method: 'POST', body }),
    }),
    getUserRoles: build.query<UserRolesResponse['data'], UserRolesRequest>({
      query: (body) => ({ url: 'user-roles/get-user-roles-by-id', method: 'POST', body }),
      transformResponse: (response: UserRolesResponse) => response.data,
      providesTags: ['Roles'],
    }),
    getGroupPublicData: build.query<GroupPublicData | null, GroupPublicDataRequest>({
      query: (body) => ({ url: 'group/groups-get-public-data', method: 'POST', body }),
      transformResponse: (response: { data: GroupPublicData | null }) => response.data ?? null,
      providesTags: ['Group'],
    }),
    consult: build.mutation<ConsultationResponse, ConsultationRequest>({
      query: (body) => ({ url: 'consultations', method: 'POST', body }),
      invalidatesTags: ['Dashboard'],
    }),
    getDashboard: build.query<DashboardResponse['data'], { position?: number | null }>({
      query: ({ position }) => ({
        url: 'dashboard',
        params: position !== null && position !== undefined ? { position } : undefined,
      }),
      transformResponse: (response: DashboardResponse) => response.data,
      providesTags: ['Dashboard'],
    }),
  }),
})

export const {
  useLoginMutation,
  useLogoutMutation,
  useGetUserRolesQuery,
  useGetGroupPublicDataQuery,
  useConsultMutation,
  useGetDashboardQuery,
} = api
