import { Navigate, Outlet, useLocation, useSearchParams } from 'react-router'
import Spinner from '../components/Spinner'
import { useAppSelector } from '../store/hooks'
import { useIsMainDomain } from './mainDomain'
import { REDIRECT_PARAM, safeRedirect } from './redirect'

function useSignedIn(): boolean {
  return useAppSelector((s) => !!s.auth.authToken && !!s.auth.authUser)
}

/** "/" without a home page in the route table: /login, or /dashboard when signed in. */
export function RootRedirect() {
  return <Navigate to={useSignedIn() ? '/dashboard' : '/login'} replace />
}

/** The public site's pages on a main product domain; any other host goes to /login. */
export function MainDomainOnly() {
  const main = useIsMainDomain()
  if (main === undefined) return <Spinner overlay />
  if (!main) return <Navigate to="/login" replace />
  return <Outlet />
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
  const firstAccess = useAppSelector((s) => s.auth.authUser?.status === 'first-access')
  const reason = useAppSelector((s) => s.auth.signOutReason)
  const location = useLocation()
  if (!signedIn) {
    if (reason === 'logout') return <Navigate to="/login" replace />
    const back = `${location.pathname}${location.search}${location.hash}`
    return <Navigate to={`/login?${REDIRECT_PARAM}=${encodeURIComponent(back)}`} replace />
  }
  // A user at first access chooses a password before anything else (the API refuses the rest).
  if (firstAccess) return <Navigate to="/first-access" replace />
  return <Outlet />
}
