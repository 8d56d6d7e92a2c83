import type { GroupPublicData } from '../store/generated/bemteviApi'

export const DEFAULT_BRAND = {
  appTitle: 'Bemtevi',
  primaryColor: '#034507',
  secondaryColor: '#2BB32A',
  lighterColor: '#D5EFD4',
  iconogram: '/favicon.svg',
} as const

export interface Brand {
  appTitle: string
  primaryColor: string
  secondaryColor: string
  lighterColor: string
  horizontalLogo: string | null
  iconogram: string
  loginBanner: string | null
  advancedQueryBanner: string | null
  /** The customer's own contact data (null: not given, a neutral text shows). */
  contactEmail: string | null
  contactPhone: string | null
  contactAddress: string | null
  aboutText: string | null
  /**
   * A customer's white label: its pages name the customer only (no platform story, contact or
   * mark). Also true while the brand is still on its way, so nothing of the platform flashes.
   */
  whiteLabel: boolean
  /** Whether the group's data has arrived (the title and favicon wait for it). */
  loaded: boolean
}

/** Parses #rgb or #rrggbb; returns null for anything else. */
export function parseHex(color: string): [number, number, number] | null {
  const m = /^#?([0-9a-f]{3}|[0-9a-f]{6})$/i.exec(color.trim())
  if (!m) return null
  let hex = m[1]
  if (hex.length === 3) hex = hex.split('').map((c) => c + c).join('')
  return [0, 2, 4].map((i) => parseInt(hex.slice(i, i + 2), 16)) as [number, number, number]
}

/** Weighted luminance (0.299R + 0.587G + 0.114B) / 255, in 0..1. */
export function weightedLuminance(color: string): number {
  const rgb = parseHex(color)
  if (!rgb) return 0
  const [r, g, b] = rgb
  return (0.299 * r + 0.587 * g + 0.114 * b) / 255
}

/** Text colour to put on a background: black when luminance > 0.5, else white. */
export function textColorOn(background: string): '#000000' | '#FFFFFF' {
  return weightedLuminance(background) > 0.5 ? '#000000' : '#FFFFFF'
}

/** "consultas bemtevi" -> "Consultas Bemtevi" (rest of each word left as it is). */
export function capitalizeWords(text: string): string {
  return text.replace(/(^|\s)(\S)/g, (_m, space: string, ch: string) => space + ch.toUpperCase())
}

function pick(value: string | null | undefined, fallback: string): string {
  return value && value.trim() && value !== 'NULL' ? value : fallback
}

function validColor(value: string | null | undefined, fallback: string): string {
  return value && parseHex(value) ? value : fallback
}

function text(value: string | null | undefined): string | null {
  return value && value.trim() ? value.trim() : null
}

/** The initial of a title, for a neutral mark ('Marca Exemplo' -> 'M'). */
export function initialOf(title: string): string {
  return (title.trim()[0] ?? '').toUpperCase()
}

/** A neutral favicon for a white label without its own: the title's initial in the brand's colours. */
export function monogramIcon(title: string, background: string): string {
  const letter = initialOf(title).replace(/[<>&"']/g, '')
  const svg =
    `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 64 64"><rect width="64" height="64" rx="14" fill="${background}"/>` +
    `<text x="32" y="44" font-family="sans-serif" font-size="36" font-weight="700" text-anchor="middle" fill="${textColorOn(background)}">${letter}</text></svg>`
  return `data:image/svg+xml,${encodeURIComponent(svg)}`
}

/**
 * Brand to show: the group's values where present, defaults otherwise. Without a group (still
 * loading) it is neutral: no title, and nothing of the platform's. A white label without a title
 * of its own shows its name, never the platform's.
 */
export function resolveBrand(group: GroupPublicData | null | undefined, loading = false): Brand {
  const whiteLabel = loading || group?.whiteLabel === true
  const fallbackTitle = whiteLabel ? '' : DEFAULT_BRAND.appTitle
  const appTitle = capitalizeWords(pick(group?.appTitle ?? group?.name, fallbackTitle))
  const primaryColor = validColor(group?.primaryColor, DEFAULT_BRAND.primaryColor)
  return {
    appTitle,
    primaryColor,
    secondaryColor: validColor(group?.secondaryColor, DEFAULT_BRAND.secondaryColor),
    lighterColor: validColor(group?.lighterColor, DEFAULT_BRAND.lighterColor),
    horizontalLogo: group?.horizontalLogo || null,
    iconogram: pick(group?.iconogram, whiteLabel ? monogramIcon(appTitle, primaryColor) : DEFAULT_BRAND.iconogram),
    loginBanner: group?.loginBanner || null,
    advancedQueryBanner: group?.advancedQueryBanner || null,
    contactEmail: text(group?.contactEmail),
    contactPhone: text(group?.contactPhone),
    contactAddress: text(group?.contactAddress),
    aboutText: text(group?.aboutText),
    whiteLabel,
    loaded: !loading,
  }
}

/** Applies the brand to the document: CSS variables, title and favicon. */
export function applyBrand(brand: Brand, doc: Document = document): void {
  const root = doc.documentElement.style
  root.setProperty('--primary', brand.primaryColor)
  root.setProperty('--secondary', brand.secondaryColor)
  root.setProperty('--lighter', brand.lighterColor)
  root.setProperty('--on-primary', textColorOn(brand.primaryColor))
  root.setProperty('--on-secondary', textColorOn(brand.secondaryColor))
  root.setProperty('--on-lighter', textColorOn(brand.lighterColor))
  // The brand's lighter colour is the theme's accent.
  root.setProperty('--accent', brand.lighterColor)
  root.setProperty('--on-accent', textColorOn(brand.lighterColor))
  if (!brand.loaded) return
  doc.title = brand.appTitle
  let link = doc.querySelector<HTMLLinkElement>('link[rel="icon"]')
  if (!link) {
    link = doc.createElement('link')
    link.rel = 'icon'
    doc.head.appendChild(link)
  }
  if (link.getAttribute('href') !== brand.iconogram) {
    link.removeAttribute('type')
    link.href = brand.iconogram
  }
}
