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
