import { skipToken } from '@reduxjs/toolkit/query'
import { useGetGroupPublicDataQuery } from '../store/api'
import { useAppSelector } from '../store/hooks'
import { resolveBrand, type Brand } from '../lib/brand'
import type { GroupPublicDataRequest } from '../types/api'

/** Which public-data call the brand comes from (none for a signed-in user without a group). */
export function useBrandRequest(): GroupPublicDataRequest | typeof skipToken {
  const user = useAppSelector((s) => s.auth.authUser)
  const token = useAppSelector((s) => s.auth.authToken)
  if (!token || !user) return { domain_url: window.location.host }
  if (user.groupId === null || user.groupId === undefined || user.groupId === '' || !user.groupUniqueKey) return skipToken
  return { group_id: user.groupId, group_unique_key: user.groupUniqueKey }
}

export function useBrand(): { brand: Brand; refetch: () => void } {
  const request = useBrandRequest()
  const query = useGetGroupPublicDataQuery(request)
  const group = request === skipToken || query.isError ? null : query.data
  return {
    brand: resolveBrand(group),
    refetch: () => {
      if (request !== skipToken && !query.isUninitialized) void query.refetch()
    },
  }
}
