import { useContext, useState } from 'react'
import { Link, Navigate, useLocation } from 'react-router'
import { useTranslation } from 'react-i18next'
import LanguageSwitch from '../components/LanguageSwitch'
import { SafeOutlet } from '../components/ScreenErrorBoundary'
import Spinner from '../components/Spinner'
import { useBrand } from '../components/useBrand'
import { errorText } from '../components/errorText'
import { firstName } from '../lib/format'
import { rolesRequestOf, routeDecision, routeNameOf } from '../lib/permissions'
import { FrameRefreshContext } from '../routes/useRefreshedLocation'
import { api } from '../store/api'
import { useRolesByIdQuery, useSignOutMutation } from '../store/generated/bemteviApi'
import { clearSession } from '../store/authSlice'
import { useAppDispatch, useAppSelector } from '../store/hooks'
import MuiProvider from '../components/mui/MuiProvider'
import MainNav from './MainNav'
import './frame.css'

export default function SignedInLayout() {
  const { t, i18n } = useTranslation()
  const dispatch = useAppDispatch()
  const { pathname } = useLocation()
  const user = useAppSelector((s) => s.auth.authUser)
  const token = useAppSelector((s) => s.auth.authToken)
  const { brand } = useBrand()
  const [logout] = useSignOutMutation()
  const [leaving, setLeaving] = useState(false)
  const [navOpen, setNavOpen] = useState(false)
  // The collapsed navigation of small screens closes once a link is followed.
  const [navPath, setNavPath] = useState(pathname)
  if (navPath !== pathname) {
    setNavPath(pathname)
    setNavOpen(false)
  }

  // Refetched before every navigation inside the signed-in area (routes/useRefreshedLocation.ts),
  // so the route below is decided with the roles as they are now.
  const roles = useRolesByIdQuery(rolesRequestOf(user), { skip: !user })
  const { refetch } = roles

  const signOut = async () => {
    setLeaving(true)
    try {
      if (token) await logout({ logoutRequest: { token } }).unwrap()
    } catch {
      // the session ends on this side whatever the server answered
    }
    dispatch(clearSession('logout'))
    dispatch(api.util.resetApiState())
  }

  const routeName = routeNameOf(pathname)
  const live = routeDecision(routeName, roles.data?.data.roles, roles.isError)
  // While the next navigation's refresh is on its way the page on screen stays as it was: fresh
  // roles arriving meanwhile decide the route they were fetched for, not this one.
  const refreshing = useContext(FrameRefreshContext)
  const [held, setHeld] = useState(live)
  if (!refreshing && held !== live) setHeld(live)
  const decision = refreshing ? held : live
  let content
  if (decision === 'allow') content = <SafeOutlet />
  else if (decision === 'forbid') content = <Navigate to="/error-forbidden" replace />
  else if (decision === 'error') {
    content = (
      <div className="card error-box" role="alert">
        <p>{errorText(roles.error, t, (k) => i18n.exists(k))}</p>
        <button type="button" className="btn" onClick={() => void refetch()}>
          {t('app.retry')}
        </button>
      </div>
    )
  } else content = <Spinner />

  return (
    <MuiProvider>
      <div className={`app-layout${navOpen ? ' nav-open' : ''}`}>
        <header className="app-header">
          <button
            type="button"
            className="nav-toggle"
            aria-expanded={navOpen}
            aria-controls="main-nav"
            aria-label={t(navOpen ? 'frame.layout.closeMenu' : 'frame.layout.openMenu')}
            onClick={() => setNavOpen((o) => !o)}
            data-testid="nav-toggle"
          >
            <span aria-hidden="true" />
          </button>
          <Link to="/dashboard" className="brand">
            {brand.horizontalLogo ? (
              <img src={brand.horizontalLogo} alt={brand.appTitle} className="brand-logo" />
            ) : (
              <span className="brand-title">{brand.appTitle}</span>
            )}
          </Link>
          <MainNav id="main-nav" roles={roles.data?.data.roles ?? []} />
          <div className="header-actions">
            <span className="user-name" data-testid="user-first-name">
              {t('app.hello', { name: firstName(user?.name) })}
            </span>
            <LanguageSwitch />
            <button type="button" className="btn btn-on-primary" onClick={() => void signOut()} disabled={leaving} data-testid="logout">
              {t('app.logout')}
            </button>
          </div>
        </header>
        <main className="app-main" aria-busy={refreshing}>
          {content}
        </main>
        <footer className="app-footer" data-testid="app-footer">
          <span>{t('frame.layout.copyright', { year: new Date().getFullYear(), name: brand.appTitle })}</span>
          <span className="app-footer-note">{t('frame.layout.lgpd')}</span>
        </footer>
      </div>
    </MuiProvider>
  )
}
