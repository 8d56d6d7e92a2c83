import { skipToken } from '@reduxjs/toolkit/query'
import { signedInBrandRequest } from '../components/useBrand'
import { errorInfo, type AnyError } from '../lib/errors'
import { rolesRequestOf, routeNameOf } from '../lib/permissions'
import { taggedApi } from '../store/endpoints'
import type { AuthUser } from '../store/generated/bemteviApi'
import type { AppDispatch } from '../store'

/**
 * Routes entered without refreshing first: the forbidden page decides nothing from the roles, and
 * whoever sends the user there (the guard, an access_denied answer) has just talked to the server.
 */
export const ROUTES_WITHOUT_REFRESH = ['error-forbidden']

export interface RefreshRuleInput {
  /** Path on screen now. */
  from: string
  /** Path navigated to. */
  to: string
  /** A session with a user, past first access (before it the API refuses the menu). */
  signedIn: boolean
  /** Route names drawn in the signed-in layout. */
  signedInRoutes: readonly string[]
}

/**
 * Whether a navigation waits for fresh roles and group data before the new route is decided and
 * drawn: a signed-in user going to another path of the signed-in area. (Query-string changes on
 * the same path, such as a list's page, are not navigations to another screen.)
 */
export function refreshBeforeNavigation({ from, to, signedIn, signedInRoutes }: RefreshRuleInput): boolean {
  if (!signedIn || from === to) return false
  const name = routeNameOf(to)
  return signedInRoutes.includes(name) && !ROUTES_WITHOUT_REFRESH.includes(name)
}

/**
 * How a refresh ended: `fresh`; `expired` on a 401 (the shared handler's Warning dialog leads
 * to /login, the navigation waits for it); `cached` on any other failure (network down, server
 * error): the navigation goes on with the roles read before.
 */
export type RefreshOutcome = 'fresh' | 'cached' | 'expired'

export function refreshOutcome(errors: AnyError[]): RefreshOutcome {
  const failed = errors.filter(Boolean)
  if (failed.some((e) => errorInfo(e).status === 401)) return 'expired'
  return failed.length > 0 ? 'cached' : 'fresh'
}

/**
 * Refetches the user's role menu and their group's public data (forced, past the cache) and
 * answers once both are in the store. The reads hold no subscription: the layout's own hooks
 * keep the entries.
 */
export async function refreshFrame(dispatch: AppDispatch, user: AuthUser): Promise<RefreshOutcome> {
  const options = { forceRefetch: true, subscribe: false } as const
  const roles = dispatch(taggedApi.endpoints.rolesById.initiate(rolesRequestOf(user), options))
  const brandRequest = signedInBrandRequest(user)
  const group = brandRequest === skipToken ? undefined : dispatch(taggedApi.endpoints.publicData.initiate(brandRequest, options))
  const [rolesResult, groupResult] = await Promise.all([roles, group])
  return refreshOutcome([rolesResult.error, groupResult?.error])
}
