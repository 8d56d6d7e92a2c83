import { createElement, lazy, Suspense, type ComponentType, type ReactNode } from 'react'
import { Route, Routes } from 'react-router'
import { ScreenErrorBoundary } from '../components/ScreenErrorBoundary'
import Spinner from '../components/Spinner'
import { GuestOnly, MainDomainOnly, RequireAuth, RootRedirect } from './guards'
import { routeTable, type RouteEntry, type RouteLayout } from './routeTable'
import { FrameRefreshContext, useRefreshedLocation } from './useRefreshedLocation'

const AuthLayout = lazy(() => import('../layouts/AuthLayout'))
const SignedInLayout = lazy(() => import('../layouts/SignedInLayout'))
const NotFoundPage = lazy(() => import('../pages/NotFoundPage'))
const PublicLayout = lazy(() => import('../features/public/PublicLayout'))

/** Layout component of each kind (the public site's layout replaces the pass-through). */
const layoutComponents: Record<RouteLayout, ComponentType> = {
  public: PublicLayout,
  auth: AuthLayout,
  'signed-in': SignedInLayout,
}

function routeOf(entry: RouteEntry): ReactNode {
  const element = createElement(entry.component)
  const route =
    entry.path === '' ? (
      <Route key={entry.name} index element={element} />
    ) : (
      <Route key={entry.name} path={entry.path} element={element} />
    )
  if (entry.guard === 'guest')
    return (
      <Route key={`guest-${entry.name}`} element={<GuestOnly />}>
        {route}
      </Route>
    )
  if (entry.guard === 'main-domain')
    return (
      <Route key={`main-${entry.name}`} element={<MainDomainOnly />}>
        {route}
      </Route>
    )
  return route
}

function group(layout: RouteLayout, entries: RouteEntry[]): ReactNode {
  const mine = entries.filter((e) => e.layout === layout)
  if (mine.length === 0) return null
  return <Route element={createElement(layoutComponents[layout])}>{mine.map(routeOf)}</Route>
}

/**
 * The app's <Routes>, built from the route table. They draw the refreshed location: inside the
 * signed-in area a navigation shows its route only once the roles and the group's data are fresh.
 */
export function AppRoutes({ table = routeTable }: { table?: RouteEntry[] }) {
  const hasIndex = table.some((e) => e.path === '')
  const { location, refreshing } = useRefreshedLocation(table)
  return (
    <FrameRefreshContext.Provider value={refreshing}>
      {/* A layout that fails to draw; a screen's own failure is caught inside its layout (SafeOutlet). */}
      <ScreenErrorBoundary resetKey={location.pathname}>
        <Suspense fallback={<Spinner overlay />}>
          <Routes location={location}>
            {!hasIndex && <Route index element={<RootRedirect />} />}
            {group('public', table)}
            {group('auth', table)}
            <Route element={<RequireAuth />}>{group('signed-in', table)}</Route>
            <Route path="*" element={<NotFoundPage />} />
          </Routes>
        </Suspense>
      </ScreenErrorBoundary>
    </FrameRefreshContext.Provider>
  )
}
