import { useEffect, useRef } from 'react'
import { useLocation } from 'react-router'
import { applyBrand } from '../lib/brand'
import { useBrand } from './useBrand'

/** Applies the tenant brand to the page and refreshes it on every navigation. */
export default function BrandApplier() {
  const { brand, refetch } = useBrand()
  const { pathname } = useLocation()
  const first = useRef(true)

  useEffect(() => {
    applyBrand(brand)
  }, [brand])

  useEffect(() => {
    if (first.current) {
      first.current = false
      return
    }
    refetch()
    // refetch only when the path changes
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [pathname])

  return null
}
