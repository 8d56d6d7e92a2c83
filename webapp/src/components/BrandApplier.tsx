import { useEffect, useRef } from 'react'
import { useLocation } from 'react-router'
import { applyBrand } from '../lib/brand'
import { useAppSelector } from '../store/hooks'
import { useBrand } from './useBrand'

/**
 * Applies the tenant brand to the page. A visitor's brand is refreshed after each navigation; a
 * signed-in user's group data is refreshed before it, with the roles (routes/useRefreshedLocation.ts).
 */
export default function BrandApplier() {
  const { brand, refetch } = useBrand()
  const { pathname } = useLocation()
  const signedIn = useAppSelector((s) => !!s.auth.authToken && !!s.auth.authUser)
  const first = useRef(true)

  useEffect(() => {
    applyBrand(brand)
  }, [brand])

  useEffect(() => {
    if (first.current) {
      first.current = false
      return
    }
    if (!signedIn) refetch()
    // refetch only when the path changes
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [pathname])

  return null
}
