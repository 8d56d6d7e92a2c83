import { Navigate, Outlet, useLocation, useSearchParams } from 'react-router'
import { useAppSelector } from '../store/hooks'
import { REDIRECT_PARAM, safeRedirect } from './redirect'

function useSignedIn(): boolean {
  return useAppSelector((s) => !!s.auth.authToken && !!s.auth.authUser)
}

/** "/" goes to /login, or to /dashboard when signed in. */
export function RootRedirect() {
  return <Navigate to={useSignedIn() ? '/dashboard' : '/login'} replace />
}

/** Pages for signed-out visitors (login): a signed-in user goes on to where they were headed. */
export function GuestOnly() {
  const signedIn = useSignedIn()
  const [params] = useSearchParams()
  if (signedIn) return <Navigate to={safeRedirect(params.get(REDIRECT_PARAM))} replace />
  return <Outlet />
}

/** Signed-in area: a visitor goes to /login, remembering the full path to return to. */
export function RequireAuth() {
  const signedIn = useSignedIn()
  const reason = useAppSelector((s) => s.auth.signOutReason)
  const location = useLocation()
  if (!signedIn) {
    if (reason === 'logout') return <Navigate to="/login" replace />
    const back = `${location.pathname}${location.search}${location.hash}`
    return <Navigate to={`/login?${REDIRECT_PARAM}=${encodeURIComponent(back)}`} replace />
  }
  return <Outlet />
}
