import { skipToken } from '@reduxjs/toolkit/query'
import { usePublicDataQuery, type AuthUser, type PublicDataApiArg } from '../store/generated/bemteviApi'
import { useAppSelector } from '../store/hooks'
import { resolveBrand, type Brand } from '../lib/brand'

/** The public-data call of a signed-in user's group (none without a group). */
export function signedInBrandRequest(user: AuthUser): PublicDataApiArg | typeof skipToken {
  if (user.groupId === null || user.groupId === undefined || user.groupId === '' || !user.groupUniqueKey) return skipToken
  return { publicDataRequest: { group_id: user.groupId, group_unique_key: user.groupUniqueKey } }
}

/** Which public-data call the brand comes from: the host's for visitors, the group's once signed in. */
export function useBrandRequest(): PublicDataApiArg | typeof skipToken {
  const user = useAppSelector((s) => s.auth.authUser)
  const token = useAppSelector((s) => s.auth.authToken)
  if (!token || !user) return { publicDataRequest: { domain_url: window.location.host } }
  return signedInBrandRequest(user)
}

export function useBrand(): { brand: Brand; refetch: () => void } {
  const request = useBrandRequest()
  const query = usePublicDataQuery(request)
  const group = request === skipToken || query.isError ? null : query.data?.data
  return {
    brand: resolveBrand(group),
    refetch: () => {
      if (request !== skipToken && !query.isUninitialized) void query.refetch()
    },
  }
}
