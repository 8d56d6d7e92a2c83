import { useState } from 'react'
import { useTranslation } from 'react-i18next'
import { Link, NavLink, useLocation } from 'react-router'
import { SafeOutlet } from '../../components/ScreenErrorBoundary'
import LanguageSwitch from '../../components/LanguageSwitch'
import { useBrand } from '../../components/useBrand'
import { useIsMainDomain } from '../../routes/mainDomain'
import { useAppSelector } from '../../store/hooks'
import { SiteMark } from '../../components/BrandMark'
import type { Brand } from '../../lib/brand'
import { siteContact, telHref } from './siteContact'
import './public.css'

const MENU = [
  { to: '/', key: 'home', end: true },
  { to: '/about', key: 'about', end: false },
  { to: '/services', key: 'services', end: false },
  { to: '/contact', key: 'contact', end: false },
] as const

function BrandName({ brand }: { brand: Brand }) {
  if (brand.horizontalLogo) return <img className="pub-brand-logo" src={brand.horizontalLogo} alt={brand.appTitle} height={40} />
  return (
    <>
      <SiteMark brand={brand} size={34} />
      <span className="pub-brand-name">{brand.appTitle}</span>
    </>
  )
}

/** The public site's frame: header menu with Login and language, the page, and the footer. */
export default function PublicLayout() {
  const { t } = useTranslation()
  const { brand } = useBrand()
  const { pathname } = useLocation()
  const main = useIsMainDomain()
  const signedIn = useAppSelector((s) => !!s.auth.authToken && !!s.auth.authUser)
  // The folded menu is open on the page it was opened on: going to another page closes it.
  const [openOn, setOpenOn] = useState<string | null>(null)
  const open = openOn === pathname

  // "/" on a host that is not a main product domain is a redirect to /login: no site frame around it.
  if (pathname === '/' && main !== true) return <SafeOutlet />

  const year = new Date().getFullYear()
  const contact = siteContact(brand, t)
  return (
    <div className="pub">
      <a className="pub-skip" href="#pub-main">
        {t('public.nav.skip')}
      </a>
      <header className="pub-header">
        <div className="pub-container pub-header-row">
          <Link to="/" className="pub-brand" aria-label={brand.appTitle}>
            <BrandName brand={brand} />
          </Link>
          <button
            type="button"
            className="pub-menu-toggle"
            aria-expanded={open}
            aria-controls="pub-menu"
            data-testid="public-menu-toggle"
            onClick={() => setOpenOn(open ? null : pathname)}
          >
            <span className="pub-burger" aria-hidden="true" />
            <span className="sr-only">{open ? t('public.nav.closeMenu') : t('public.nav.openMenu')}</span>
          </button>
          <nav id="pub-menu" className={`pub-nav${open ? ' is-open' : ''}`} aria-label={t('public.nav.label')}>
            <ul>
              {MENU.map((item) => (
                <li key={item.key}>
                  <NavLink to={item.to} end={item.end} data-testid={`public-nav-${item.key}`}>
                    {t(`public.nav.${item.key}`)}
                  </NavLink>
                </li>
              ))}
            </ul>
            <div className="pub-nav-actions">
              <LanguageSwitch />
              {signedIn ? (
                <Link className="pub-btn pub-btn-primary" to="/dashboard" data-testid="public-login">
                  {t('public.nav.dashboard')}
                </Link>
              ) : (
                <Link className="pub-btn pub-btn-primary" to="/login" data-testid="public-login">
                  {t('public.nav.login')}
                </Link>
              )}
            </div>
          </nav>
        </div>
      </header>
      <main id="pub-main" className="pub-main">
        <SafeOutlet />
      </main>
      <footer className="pub-footer">
        <div className="pub-container pub-footer-grid">
          <div className="pub-footer-brand">
            <Link to="/" className="pub-brand pub-brand-footer">
              <SiteMark brand={brand} size={30} />
              <span className="pub-brand-name">{brand.appTitle}</span>
            </Link>
            <p>{t('public.footer.tagline')}</p>
          </div>
          <nav aria-label={t('public.footer.site')}>
            <h2>{t('public.footer.site')}</h2>
            <ul>
              <li>
                <Link to="/" data-testid="footer-home">{t('public.nav.home')}</Link>
              </li>
              <li>
                <Link to="/about" data-testid="footer-about">{t('public.nav.about')}</Link>
              </li>
              <li>
                <Link to="/services" data-testid="footer-services">{t('public.nav.services')}</Link>
              </li>
              <li>
                {/* No blog yet (the specification sets no route): shown, not linked. */}
                <span className="pub-disabled-link" aria-disabled="true" data-testid="footer-blog">
                  {t('public.footer.blog')} <small>({t('public.footer.soon')})</small>
                </span>
              </li>
              <li>
                <Link to="/contact" data-testid="footer-contact">{t('public.nav.contact')}</Link>
              </li>
            </ul>
          </nav>
          <nav aria-label={t('public.footer.legal')}>
            <h2>{t('public.footer.legal')}</h2>
            <ul>
              <li>
                <Link to="/terms-of-use" data-testid="footer-terms">{t('public.footer.terms')}</Link>
              </li>
              <li>
                <Link to="/privacy-policy" data-testid="footer-privacy">{t('public.footer.privacy')}</Link>
              </li>
              {contact.email && (
                <li>
                  <a href={`mailto:${contact.email}`} data-testid="footer-email">{contact.email}</a>
                </li>
              )}
              {contact.phone && (
                <li>
                  <a href={telHref(contact.phone)} data-testid="footer-phone">{contact.phone}</a>
                </li>
              )}
            </ul>
          </nav>
        </div>
        <div className="pub-container pub-footer-bottom">
          <span>{t('public.footer.rights', { year, name: brand.appTitle })}</span>
          <span>{t('public.footer.lgpd')}</span>
        </div>
      </footer>
    </div>
  )
}
