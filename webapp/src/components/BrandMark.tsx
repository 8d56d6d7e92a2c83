import type { Brand } from '../lib/brand'

/** The platform's own mark (public site and sign-in screens), drawn in the brand's colours. */
export function BrandMark({ size = 32 }: { size?: number }) {
  return (
    <svg width={size} height={size} viewBox="0 0 32 32" aria-hidden="true" focusable="false">
      <circle cx="16" cy="16" r="15" fill="var(--primary)" />
      <path d="M8 18c3-6 9-8 15-5l3-2-1 4c-2 5-8 8-14 6l-4 3 1-6z" fill="var(--secondary)" />
      <path d="M12 17c2-2 5-3 8-2" stroke="#fff" strokeWidth="1.6" fill="none" strokeLinecap="round" />
      <circle cx="21" cy="13.5" r="1.2" fill="#fff" />
    </svg>
  )
}

/**
 * The mark beside the site's title: the platform's bird on its own site; on a customer's white
 * label, the customer's icon or, without one, its initial in its colours (never the bird).
 */
export function SiteMark({ brand, size = 32 }: { brand: Brand; size?: number }) {
  if (!brand.whiteLabel) return <BrandMark size={size} />
  if (!brand.loaded) return <span style={{ display: 'inline-block', width: size, height: size }} aria-hidden="true" />
  return <img src={brand.iconogram} width={size} height={size} alt="" className="site-mark" data-testid="site-mark" />
}
