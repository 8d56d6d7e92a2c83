import type { AuthUser, RolesByIdApiArg } from '../store/generated/bemteviApi'
import type { RoleMenuEntry } from '../types/api'

/** Signed-in routes every user may open, whatever the role menu says. */
export const ALWAYS_ALLOWED_ROUTES = ['error-forbidden', 'my-account', 'personal-information', 'edit-my-profile']

/** The role-menu call for the signed-in user (callers skip it while there is none). */
export function rolesRequestOf(user: AuthUser | null): RolesByIdApiArg {
  return { rolesRequest: { user_id: user?.id ?? '', user_unique_key: user?.uniqueKey ?? '', group_id: user?.groupId ?? '' } }
}

/** Route name of a path: its first segment ("/query-result/123/cpf" -> "query-result"). */
export function routeNameOf(pathname: string): string {
  return pathname.split('/').filter(Boolean)[0] ?? ''
}

function appearsIn(entries: RoleMenuEntry[] | null | undefined, routeName: string): boolean {
  if (!entries) return false
  return entries.some(
    (entry) => (entry.active_routes ?? []).includes(routeName) || appearsIn(entry.children, routeName),
  )
}

/** Whether a signed-in user with these role menu entries may open the route. */
export function isRouteAllowed(routeName: string, roles: RoleMenuEntry[] | null | undefined): boolean {
  if (ALWAYS_ALLOWED_ROUTES.includes(routeName)) return true
  return appearsIn(roles, routeName)
}

/**
 * What the signed-in layout does with a route: `allow` draws it, `forbid` goes to error-forbidden,
 * `wait` shows a spinner while the first role menu is on its way, `error` offers a retry when it
 * could not be read at all. Roles read before (the cache) decide even when a refresh failed.
 */
export type RouteDecision = 'allow' | 'forbid' | 'wait' | 'error'

export function routeDecision(
  routeName: string,
  roles: RoleMenuEntry[] | null | undefined,
  failed: boolean,
): RouteDecision {
  if (ALWAYS_ALLOWED_ROUTES.includes(routeName)) return 'allow'
  if (roles) return isRouteAllowed(routeName, roles) ? 'allow' : 'forbid'
  return failed ? 'error' : 'wait'
}
