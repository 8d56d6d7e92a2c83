import {
  createApi,
  fetchBaseQuery,
  type BaseQueryFn,
  type FetchArgs,
  type FetchBaseQueryError,
} from '@reduxjs/toolkit/query/react'
import { errorInfo } from '../lib/errors'
import type { AuthState } from './authSlice'
import { loadingReset, setForbidden, showWarning } from './uiSlice'

/** Where the API answers; the generated endpoints' paths are relative to it. */
export const API_BASE_URL = '/api'

const rawBaseQuery = fetchBaseQuery({
  baseUrl: API_BASE_URL,
  prepareHeaders: (headers, { getState }) => {
    const token = (getState() as { auth: AuthState }).auth.authToken
    if (token) headers.set('Authorization', `Bearer ${token}`)
    return headers
  },
})

/** Endpoints whose errors the calling screen handles alone (no global Warning dialog). */
const SELF_HANDLED = new Set(['signIn', 'signOut'])

/** Reads sent as POST (their filters are a body): they take `position` like a GET. */
export const POST_READS: ReadonlySet<string> = new Set(['publicData'])

/**
 * Read-your-writes: once a command answered with an event-store `position`, every read (a GET, or
 * a POST named in POST_READS) carries the highest one seen, so the read model answers only when it
 * has caught up with it: a brand just saved is the one the frame applies. A call that names its own
 * `position` keeps it.
 */
export function withPosition(args: string | FetchArgs, position: number | null | undefined, postRead = false): string | FetchArgs {
  if (position === null || position === undefined) return args
  const request: FetchArgs = typeof args === 'string' ? { url: args } : args
  if (!postRead && request.method && request.method.toUpperCase() !== 'GET') return args
  const params = (request.params ?? {}) as Record<string, unknown>
  if (params.position !== undefined && params.position !== null) return args
  if (/[?&]position=/.test(request.url)) return args
  return { ...request, params: { ...params, position } }
}

/**
 * The generated queries pass every optional parameter, absent ones as undefined or null: neither
 * goes into the URL (fetchBaseQuery would write a null as "null").
 */
export function withoutAbsentParams(args: string | FetchArgs): string | FetchArgs {
  if (typeof args === 'string' || !args.params) return args
  const params = Object.fromEntries(Object.entries(args.params).filter(([, v]) => v !== undefined && v !== null))
  return { ...args, params }
}

/**
 * Shared error handling (spec section 8): any error hides the loading overlay; a 401 on a signed-in call opens the Warning
 * dialog with the server's error, said in the reader's language by its code (OK clears the session and goes to /login);
 * access_denied sends the user to /error-forbidden. Other errors go back to the caller.
 */
export const baseQuery: BaseQueryFn<string | FetchArgs, unknown, FetchBaseQueryError> = async (
  args,
  api,
  extraOptions,
) => {
  const lastPosition = (api.getState() as { session?: { lastPosition: number | null } }).session?.lastPosition
  const result = await rawBaseQuery(withoutAbsentParams(withPosition(args, lastPosition, POST_READS.has(api.endpoint))), api, extraOptions)
  if (result.error) api.dispatch(loadingReset())
  if (result.error && !SELF_HANDLED.has(api.endpoint)) {
    const signedIn = !!(api.getState() as { auth: AuthState }).auth.authToken
    const info = errorInfo(result.error)
    if (info.status === 401 && signedIn) api.dispatch(showWarning({ code: info.code, message: info.message, values: info.values }))
    else if (info.status === 403 && info.code === 'access_denied') api.dispatch(setForbidden(true))
  }
  return result
}

/**
 * The app's one RTK Query api. Its endpoints are generated from the API's OpenAPI schema into
 * ./generated/bemteviApi.ts (`npm run codegen`); ./endpoints.ts adds their cache tags.
 */
export const api = createApi({
  reducerPath: 'api',
  baseQuery,
  endpoints: () => ({}),
})
