import { createContext, useEffect, useMemo, useState } from 'react'
import { useLocation, type Location } from 'react-router'
import { useAppDispatch, useAppSelector } from '../store/hooks'
import { loadingStarted, loadingStopped } from '../store/uiSlice'
import { refreshBeforeNavigation, refreshFrame } from './frameRefresh'
import type { RouteEntry } from './routeTable'

/** Loading group of the refresh that runs before a navigation. */
export const NAVIGATION_LOADING = 'navigation'
/** A refresh answered sooner than this shows no overlay (the previous page simply stays). */
export const NAVIGATION_OVERLAY_DELAY_MS = 200

/** True while a navigation waits for its refresh: the page on screen is the previous one. */
export const FrameRefreshContext = createContext(false)

/**
 * The location the routes draw. On a navigation inside the signed-in area the role menu and the
 * group's public data are refetched first; until both answered, the previous location stays on
 * screen (so the permission guard only ever decides with the fresh roles). A 401 leaves the
 * navigation to the Warning dialog's flow; any other failure lets it go on with the cached data.
 */
export function useRefreshedLocation(table: RouteEntry[]): { location: Location; refreshing: boolean } {
  const location = useLocation()
  const dispatch = useAppDispatch()
  const user = useAppSelector((s) => s.auth.authUser)
  const token = useAppSelector((s) => s.auth.authToken)
  const signedInRoutes = useMemo(
    () => table.filter((e) => e.layout === 'signed-in').map((e) => e.path.split('/')[0]),
    [table],
  )
  // What is on screen, and the path whose refresh has answered (cleared once it is on screen).
  const [shown, setShown] = useState(location)
  const [refreshed, setRefreshed] = useState<string | null>(null)
  const signedIn = !!token && !!user && user.status !== 'first-access'
  const refreshing =
    refreshed !== location.pathname &&
    refreshBeforeNavigation({ from: shown.pathname, to: location.pathname, signedIn, signedInRoutes })
  if (!refreshing && shown !== location) {
    setShown(location)
    setRefreshed(null)
  }

  const path = location.pathname
  useEffect(() => {
    if (!refreshing || !user) return
    let current = true
    let overlay = false
    const timer = setTimeout(() => {
      overlay = true
      dispatch(loadingStarted(NAVIGATION_LOADING))
    }, NAVIGATION_OVERLAY_DELAY_MS)
    void refreshFrame(dispatch, user)
      .then((outcome) => {
        if (current && outcome !== 'expired') setRefreshed(path)
      })
      .finally(() => {
        clearTimeout(timer)
        if (overlay) dispatch(loadingStopped(NAVIGATION_LOADING))
      })
    return () => {
      current = false
    }
  }, [refreshing, path, user, dispatch])

  return { location: refreshing ? shown : location, refreshing }
}
