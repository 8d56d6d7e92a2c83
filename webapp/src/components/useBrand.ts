import { skipToken } from '@reduxjs/toolkit/query'
import { usePublicDataQuery, type AuthUser, type PublicDataApiArg } from '../store/generated/bemteviApi'
import { useAppSelector } from '../store/hooks'
import { resolveBrand, type Brand } from '../lib/brand'

/** The public-data call of a signed-in user's group (none without a group). */
export function signedInBrandRequest(user: AuthUser): PublicDataApiArg | typeof skipToken {
  if (user.groupId === null || user.groupId === undefined || user.groupId === '' || !user.groupUniqueKey) return skipToken
  return { publicDataRequest: { group_id: user.groupId, group_unique_key: user.groupUniqueKey } }
}

/**
 * Which public-data call the brand comes from: the host's for visitors, the group's once signed in.
 * A user at first access is still on the host's brand: the API answers nothing else until they
 * have chosen a password, and the white-label's client must not see the screen fall back to the
 * default brand.
 */
export function brandRequest(
  token: string | null | undefined,
  user: AuthUser | null | undefined,
  host: string,
): PublicDataApiArg | typeof skipToken {
  if (!token || !user || user.status === 'first-access') return { publicDataRequest: { domain_url: host } }
  return signedInBrandRequest(user)
}

export function useBrandRequest(): PublicDataApiArg | typeof skipToken {
  const user = useAppSelector((s) => s.auth.authUser)
  const token = useAppSelector((s) => s.auth.authToken)
  return brandRequest(token, user, window.location.host)
}

export function useBrand(): { brand: Brand; refetch: () => void } {
  const request = useBrandRequest()
  const query = usePublicDataQuery(request)
  const group = request === skipToken || query.isError ? null : query.data?.data
  // Until the answer (or a failure) is in, the brand is neutral: a white label's visitor must not
  // see the platform's title or mark for a moment.
  const loading = request !== skipToken && !query.isError && query.data === undefined
  return {
    brand: resolveBrand(group, loading),
    refetch: () => {
      if (request !== skipToken && !query.isUninitialized) void query.refetch()
    },
  }
}
