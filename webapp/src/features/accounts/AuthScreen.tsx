import { createContext, useCallback, useContext, useMemo, useState, type ReactNode } from 'react'
import { useTranslation } from 'react-i18next'
import Typography from '@mui/material/Typography'
import { useBrand } from '../../components/useBrand'
import { SiteMark } from '../../components/BrandMark'
import type { Brand } from '../../lib/brand'
import { authArt, type AuthArt } from './authArt'
import './accounts.css'

const P = 'var(--primary)'
const S = 'var(--secondary)'
const L = 'var(--lighter)'

/**
 * The default login banner: original artwork in the brand's colours (no image download). The
 * platform's bird perches on the card on its own site only; a customer's white label shows the
 * card and chart alone (its own banner, when uploaded, replaces all of it).
 */
function DefaultBanner({ platform }: { platform: boolean }) {
  return (
    <svg className="auth-art-default" viewBox="0 0 708 896" preserveAspectRatio="xMidYMid slice" aria-hidden="true" focusable="false">
      <rect width="708" height="896" fill={P} />
      <circle cx="620" cy="120" r="260" fill={S} opacity="0.35" />
      <circle cx="80" cy="860" r="300" fill={L} opacity="0.18" />
      <g>
        <rect x="120" y="300" width="468" height="300" rx="24" fill="#fff" />
        <rect x="152" y="334" width="140" height="16" rx="8" fill={P} />
        <rect x="152" y="366" width="220" height="12" rx="6" fill={L} />
        <rect x="152" y="520" width="48" height="48" rx="8" fill={S} />
        <rect x="216" y="470" width="48" height="98" rx="8" fill={P} />
        <rect x="280" y="430" width="48" height="138" rx="8" fill={S} />
        <rect x="344" y="490" width="48" height="78" rx="8" fill={P} />
        <circle cx="494" cy="480" r="62" fill="none" stroke={L} strokeWidth="22" />
        <path d="M494 418a62 62 0 0 1 58 40" fill="none" stroke={S} strokeWidth="22" />
      </g>
      {platform ? (
        <g transform="translate(392 178) scale(4)" data-testid="auth-art-bird">
          <path d="M8 18c3-6 9-8 15-5l3-2-1 4c-2 5-8 8-14 6l-4 3 1-6z" fill={S} />
          <path d="M12 17c2-2 5-3 8-2" stroke="#fff" strokeWidth="1.6" fill="none" strokeLinecap="round" />
          <circle cx="21" cy="13.5" r="1.2" fill="#fff" />
        </g>
      ) : (
        <g>
          {/* a neutral magnifier over the card: looking data up, nobody's mark */}
          <circle cx="470" cy="250" r="54" fill="none" stroke={S} strokeWidth="18" />
          <path d="M508 288l46 46" stroke={S} strokeWidth="22" strokeLinecap="round" />
        </g>
      )}
    </svg>
  )
}

interface ArtContextValue {
  art: AuthArt
  appTitle: string
  brand: Brand
  failedToLoad: (src: string) => void
}

const ArtContext = createContext<ArtContextValue | null>(null)

/** The brand's images for the auth screens, with the artwork standing in for any that fails to load. */
function useArtState(): ArtContextValue {
  const { brand } = useBrand()
  const [failed, setFailed] = useState<ReadonlySet<string>>(new Set())
  const failedToLoad = useCallback((src: string) => setFailed((f) => new Set(f).add(src)), [])
  const art = useMemo(() => authArt(brand, failed), [brand, failed])
  return { art, appTitle: brand.appTitle, brand, failedToLoad }
}

/**
 * The frame of the login, create-account, recovery and first-access screens, as a white-label
 * shows them to its own clients: the brand's login banner beside the form at 900 px and wider, one
 * column on phones (a slim band of the brand's colours on top, then the card).
 */
export default function AuthScreen({ children }: { children: ReactNode }) {
  const { t } = useTranslation()
  const value = useArtState()
  const { art, appTitle, brand, failedToLoad } = value
  return (
    <ArtContext.Provider value={value}>
      <div className="login-page auth-split">
        <aside className="auth-art" data-testid="auth-banner">
          {art.banner ? (
            <div className="login-banner">
              <img src={art.banner} alt={t('login.bannerAlt')} onError={() => failedToLoad(art.banner ?? '')} />
            </div>
          ) : (
            <>
              <DefaultBanner platform={!brand.whiteLabel} />
              <div className="auth-art-caption">
                <Typography variant="h4" component="p" sx={{ fontWeight: 700 }}>
                  {appTitle}
                </Typography>
                <Typography variant="h6" component="p" sx={{ fontWeight: 400 }}>
                  {t('accounts.auth.tagline')}
                </Typography>
              </div>
            </>
          )}
        </aside>
        <main className="auth-panel">{children}</main>
      </div>
    </ArtContext.Provider>
  )
}

/** The brand's horizontal logo above a card's title; the product mark and the title without one. */
export function AuthBrand() {
  const context = useContext(ArtContext)
  if (!context) return null
  const { art, appTitle, brand, failedToLoad } = context
  return (
    <div className="login-brand" data-testid="auth-brand">
      {art.logo ? (
        <img src={art.logo} alt={appTitle} className="brand-logo" width={208} height={68} onError={() => failedToLoad(art.logo ?? '')} />
      ) : (
        <span className="auth-brand-default">
          <SiteMark brand={brand} size={40} />
          <span className="brand-title">{appTitle}</span>
        </span>
      )}
    </div>
  )
}
