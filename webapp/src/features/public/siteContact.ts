import type { TFunction } from 'i18next'
import type { Brand } from '../../lib/brand'

/** What the public pages say about who runs the site. */
export interface SiteContact {
  email: string | null
  phone: string | null
  address: string | null
  /** The about text in paragraphs (a blank line apart), or null for the site's own. */
  about: string[] | null
  /** A customer's white label: no platform story, figures, team or contact, neutral texts instead. */
  whiteLabel: boolean
}

/**
 * The platform's own site shows its contact data (the brand's where its owner set them); a
 * customer's white label shows only what the customer gave, never the platform's.
 */
export function siteContact(brand: Brand, t: TFunction): SiteContact {
  const about = brand.aboutText
    ? brand.aboutText
        .split(/\n\s*\n/)
        .map((p) => p.trim())
        .filter(Boolean)
    : null
  if (brand.whiteLabel) {
    return { email: brand.contactEmail, phone: brand.contactPhone, address: brand.contactAddress, about, whiteLabel: true }
  }
  return {
    email: brand.contactEmail ?? t('public.contact.email'),
    phone: brand.contactPhone ?? t('public.contact.phone'),
    address: brand.contactAddress ?? t('public.contact.location'),
    about,
    whiteLabel: false,
  }
}

/** A phone as a tel: address (digits and a leading +). */
export function telHref(phone: string): string {
  return `tel:${phone.replace(/[^\d+]/g, '')}`
}
