import { useContext, useState } from 'react'
import { Link, Navigate, useLocation } from 'react-router'
import { useTranslation } from 'react-i18next'
import AppBar from '@mui/material/AppBar'
import Alert from '@mui/material/Alert'
import Box from '@mui/material/Box'
import Button from '@mui/material/Button'
import Drawer from '@mui/material/Drawer'
import IconButton from '@mui/material/IconButton'
import Toolbar from '@mui/material/Toolbar'
import Typography from '@mui/material/Typography'
import useMediaQuery from '@mui/material/useMediaQuery'
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
import HeaderLanguageSelect from './HeaderLanguageSelect'
import MainNav from './MainNav'
import './frame.css'

/** The sidebar's width on wide screens (px): its longest entry, "Enriquecimento manual" in bold under its section, on one line. */
const DRAWER_WIDTH = 280
/** From this width the sidebar stays open beside the screen; below it folds behind the menu button. */
const WIDE = '(min-width: 1024px)'

/** Three bars, or a cross while the menu is open (no icon package: two spans of CSS). */
function MenuIcon({ open }: { open: boolean }) {
  return <span className={`menu-icon${open ? ' open' : ''}`} aria-hidden="true" />
}

export default function SignedInLayout() {
  return (
    <MuiProvider>
      <Frame />
    </MuiProvider>
  )
}

/**
 * The signed-in frame on MUI, themed by the brand: an app bar (menu button under 1024 px, logo,
 * greeting, language switch, Sign out), a sidebar drawer with the role's menu (permanent from
 * 1024 px, a temporary drawer below that closes once a link is followed), the screen and the footer.
 */
function Frame() {
  const { t, i18n } = useTranslation()
  const dispatch = useAppDispatch()
  const { pathname } = useLocation()
  const wide = useMediaQuery(WIDE, { noSsr: true })
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
      <Alert
        severity="error"
        role="alert"
        action={
          <Button color="inherit" size="small" onClick={() => void refetch()}>
            {t('app.retry')}
          </Button>
        }
      >
        {errorText(roles.error, t, (k) => i18n.exists(k))}
      </Alert>
    )
  } else content = <Spinner />

  const nav = <MainNav id="main-nav" roles={roles.data?.data.roles ?? []} />
  return (
    <Box className="app-layout" sx={{ display: 'flex', minHeight: '100vh' }}>
      <AppBar position="fixed" elevation={1} className="app-bar" sx={{ zIndex: (theme) => theme.zIndex.drawer + 1 }}>
        <Toolbar sx={{ gap: { xs: 1, sm: 2 }, px: { xs: 1, sm: 2, xl: 4 }, minWidth: 0 }}>
          {!wide && (
            <IconButton
              color="inherit"
              edge="start"
              aria-expanded={navOpen}
              aria-controls="main-nav"
              aria-label={t(navOpen ? 'frame.layout.closeMenu' : 'frame.layout.openMenu')}
              onClick={() => setNavOpen((o) => !o)}
              data-testid="nav-toggle"
            >
              <MenuIcon open={navOpen} />
            </IconButton>
          )}
          <Box component={Link} to="/dashboard" className="brand" sx={{ color: 'inherit', textDecoration: 'none', minWidth: 0, flexShrink: 1 }}>
            {brand.horizontalLogo ? (
              <img src={brand.horizontalLogo} alt={brand.appTitle} className="brand-logo" />
            ) : (
              <Typography component="span" noWrap sx={{ fontWeight: 700, fontSize: { xs: '1.05rem', sm: '1.3rem' }, display: 'block' }}>
                {brand.appTitle}
              </Typography>
            )}
          </Box>
          <Box sx={{ flex: 1 }} />
          <Typography
            component="span"
            noWrap
            data-testid="user-first-name"
            sx={{ display: { xs: 'none', sm: 'block' }, minWidth: 0 }}
          >
            {t('app.hello', { name: firstName(user?.name) })}
          </Typography>
          <HeaderLanguageSelect />
          <Button
            variant="outlined"
            color="inherit"
            size="small"
            onClick={() => void signOut()}
            disabled={leaving}
            data-testid="logout"
            sx={{ flexShrink: 0, whiteSpace: 'nowrap' }}
          >
            {t('app.logout')}
          </Button>
        </Toolbar>
      </AppBar>
      <Drawer
        variant={wide ? 'permanent' : 'temporary'}
        open={wide || navOpen}
        onClose={() => setNavOpen(false)}
        // The menu stays in the document while folded (hidden), so it is built once per session.
        ModalProps={{ keepMounted: true }}
        sx={{
          width: wide ? DRAWER_WIDTH : undefined,
          flexShrink: 0,
          '& .MuiDrawer-paper': { width: wide ? DRAWER_WIDTH : 'min(300px, 85vw)', boxSizing: 'border-box' },
        }}
      >
        <Toolbar />
        {!wide && (
          <Typography noWrap data-testid="user-first-name-menu" sx={{ px: 3, pt: 2, color: 'text.secondary' }}>
            {t('app.hello', { name: firstName(user?.name) })}
          </Typography>
        )}
        {nav}
      </Drawer>
      <Box sx={{ flex: 1, minWidth: 0, display: 'flex', flexDirection: 'column' }}>
        <Toolbar />
        <main className="app-main" aria-busy={refreshing}>
          {content}
        </main>
        <footer className="app-footer" data-testid="app-footer">
          <span>{t('frame.layout.copyright', { year: new Date().getFullYear(), name: brand.appTitle })}</span>
          <span className="app-footer-note">{t('frame.layout.lgpd')}</span>
        </footer>
      </Box>
    </Box>
  )
}
