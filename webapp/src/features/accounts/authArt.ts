import type { Brand } from '../../lib/brand'

/** What an auth screen draws in the logo's and the banner's places. */
export interface AuthArt {
  /** The brand's horizontal logo (208x68), or null: the product mark in the brand's colours and the title. */
  logo: string | null
  /** The brand's login banner (708x896), or null: the default artwork in the brand's colours. */
  banner: string | null
}

/**
 * The images the login, create-account, recovery and first-access screens show. The public-data
 * call has already resolved each one from the group, its ancestors, then the default brand (which
 * has none); an address that failed to load falls back to the artwork too, and a new address (the
 * brand saved a new image) is tried again.
 */
export function authArt(brand: Pick<Brand, 'horizontalLogo' | 'loginBanner'>, failed: ReadonlySet<string> = new Set()): AuthArt {
  const usable = (src: string | null): string | null => (src && src.trim() && !failed.has(src) ? src : null)
  return { logo: usable(brand.horizontalLogo), banner: usable(brand.loginBanner) }
}
