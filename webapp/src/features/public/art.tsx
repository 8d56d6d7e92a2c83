/** Original SVG artwork of the public site, drawn in the brand's CSS colours (no image downloads). */
import type { LogoSpec } from './logos'
import type { ServiceKey } from './services'

const P = 'var(--primary)'
const S = 'var(--secondary)'
const L = 'var(--lighter)'

/** The product mark: a small bird on a speech-bubble circle. */
function LogoShape({ shape }: { shape: LogoSpec['shape'] }) {
  switch (shape) {
    case 'leaf':
      return <path d="M4 20C4 10 11 4 22 4c0 11-6 18-16 18l-2 2z M8 18l10-10" fill="none" stroke="currentColor" strokeWidth="2.4" strokeLinejoin="round" />
    case 'check':
      return (
        <g fill="none" stroke="currentColor" strokeWidth="2.4" strokeLinecap="round">
          <circle cx="13" cy="13" r="10" />
          <path d="M8 13.5l3.5 3.5L18 9.5" />
        </g>
      )
    case 'grain':
      return (
        <g fill="currentColor">
          <ellipse cx="9" cy="9" rx="4" ry="6" transform="rotate(-30 9 9)" />
          <ellipse cx="17" cy="9" rx="4" ry="6" transform="rotate(30 17 9)" />
          <rect x="12" y="12" width="2.4" height="12" rx="1.2" />
        </g>
      )
    case 'atlas':
      return <path d="M3 23L13 3l10 20H3zm5-4h10" fill="none" stroke="currentColor" strokeWidth="2.4" strokeLinejoin="round" />
    case 'wave':
      return <path d="M2 10c4-4 7 4 11 0s7 4 11 0M2 17c4-4 7 4 11 0s7 4 11 0" fill="none" stroke="currentColor" strokeWidth="2.4" strokeLinecap="round" />
    case 'nexo':
      return (
        <g fill="none" stroke="currentColor" strokeWidth="2.4">
          <circle cx="8" cy="13" r="5" />
          <circle cx="18" cy="13" r="5" />
        </g>
      )
  }
}

export function CustomerLogo({ spec }: { spec: LogoSpec }) {
  return (
    <svg className="pub-logo" viewBox="0 0 170 28" role="img" aria-label={spec.name}>
      <LogoShape shape={spec.shape} />
      <text x="32" y="19" fontSize="15" fontWeight="700" fill="currentColor" fontFamily="inherit" letterSpacing="0.2">
        {spec.name}
      </text>
    </svg>
  )
}

/** Hero illustration: a lookup card and a usage chart on a dashboard frame. */
export function HeroArt({ label }: { label: string }) {
  return (
    <svg className="pub-hero-art" viewBox="0 0 480 360" role="img" aria-label={label}>
      <rect x="20" y="20" width="440" height="300" rx="18" fill="#fff" stroke="var(--pub-line)" />
      <rect x="20" y="20" width="440" height="40" rx="18" fill={P} />
      <rect x="20" y="44" width="440" height="16" fill={P} />
      <circle cx="46" cy="40" r="6" fill={S} />
      <rect x="62" y="35" width="90" height="10" rx="5" fill="#ffffff55" />
      <rect x="44" y="80" width="190" height="120" rx="12" fill={L} />
      <circle cx="76" cy="114" r="18" fill={P} />
      <rect x="104" y="102" width="110" height="9" rx="4.5" fill={P} />
      <rect x="104" y="118" width="76" height="8" rx="4" fill={S} />
      <rect x="60" y="148" width="156" height="7" rx="3.5" fill="#ffffffcc" />
      <rect x="60" y="164" width="130" height="7" rx="3.5" fill="#ffffffcc" />
      <rect x="60" y="180" width="100" height="7" rx="3.5" fill="#ffffffcc" />
      <rect x="252" y="80" width="184" height="120" rx="12" fill="#fff" stroke="var(--pub-line)" />
      {[30, 52, 44, 70, 62, 88].map((h, i) => (
        <rect key={i} x={272 + i * 26} y={184 - h} width="16" height={h} rx="4" fill={i === 5 ? S : P} opacity={i === 5 ? 1 : 0.85} />
      ))}
      <rect x="44" y="220" width="392" height="76" rx="12" fill="#fff" stroke="var(--pub-line)" />
      {[0, 1, 2].map((i) => (
        <g key={i}>
          <circle cx={72} cy={240 + i * 20} r="5" fill={i === 0 ? S : L} />
          <rect x="86" y={236 + i * 20} width={220 - i * 40} height="8" rx="4" fill="#d9e2dc" />
          <rect x="360" y={236 + i * 20} width="56" height="8" rx="4" fill={i === 0 ? S : '#d9e2dc'} />
        </g>
      ))}
      <g transform="translate(330 248)">
        <rect x="0" y="58" width="132" height="50" rx="12" fill={S} />
        <path d="M20 84l10 10 20-22" stroke="#fff" strokeWidth="5" fill="none" strokeLinecap="round" strokeLinejoin="round" />
        <rect x="62" y="74" width="54" height="8" rx="4" fill="#ffffffcc" />
        <rect x="62" y="88" width="38" height="7" rx="3.5" fill="#ffffff99" />
      </g>
    </svg>
  )
}

/** Line icon of each service. */
export function ServiceIcon({ service }: { service: ServiceKey }) {
  const common = { fill: 'none', stroke: 'currentColor', strokeWidth: 2, strokeLinecap: 'round' as const, strokeLinejoin: 'round' as const }
  let body
  switch (service) {
    case 'dynamic-queries':
      body = (
        <g {...common}>
          <circle cx="14" cy="14" r="7" />
          <path d="M19 19l6 6" />
          <path d="M11 14h6M14 11v6" />
        </g>
      )
      break
    case 'batch-enrichment':
      body = (
        <g {...common}>
          <path d="M8 6h12l4 4v16H8z" />
          <path d="M12 14h8M12 18h8M12 22h5" />
        </g>
      )
      break
    case 'mailing-lists':
      body = (
        <g {...common}>
          <rect x="5" y="8" width="22" height="16" rx="2" />
          <path d="M5 10l11 8 11-8" />
        </g>
      )
      break
    case 'enrichment-layouts':
      body = (
        <g {...common}>
          <rect x="5" y="5" width="9" height="9" rx="1.5" />
          <rect x="18" y="5" width="9" height="9" rx="1.5" />
          <rect x="5" y="18" width="9" height="9" rx="1.5" />
          <rect x="18" y="18" width="9" height="9" rx="1.5" />
        </g>
      )
      break
    case 'online-system':
      body = (
        <g {...common}>
          <rect x="4" y="6" width="24" height="16" rx="2" />
          <path d="M12 27h8M16 22v5M9 17l4-4 3 3 6-6" />
        </g>
      )
      break
    case 'api':
      body = (
        <g {...common}>
          <path d="M11 9l-6 7 6 7M21 9l6 7-6 7M18 7l-4 18" />
        </g>
      )
      break
    case 'automatic-dialer':
      body = (
        <g {...common}>
          <path d="M8 5h5l2 6-3 2a13 13 0 0 0 7 7l2-3 6 2v5a2 2 0 0 1-2 2C14 26 6 18 6 7a2 2 0 0 1 2-2z" />
        </g>
      )
      break
    case 'sms':
      body = (
        <g {...common}>
          <path d="M5 7h22v14H13l-6 5v-5H5z" />
          <path d="M10 14h.01M16 14h.01M22 14h.01" strokeWidth="3" />
        </g>
      )
      break
  }
  return (
    <svg className="pub-icon" viewBox="0 0 32 32" width="32" height="32" aria-hidden="true" focusable="false">
      {body}
    </svg>
  )
}

export function TrustIcon({ kind }: { kind: 'lgpd' | 'audit' | 'access' | 'security' }) {
  const common = { fill: 'none', stroke: 'currentColor', strokeWidth: 2, strokeLinecap: 'round' as const, strokeLinejoin: 'round' as const }
  const paths = {
    lgpd: <path d="M16 4l10 4v7c0 7-5 11-10 13C11 26 6 22 6 15V8z M11 16l4 4 7-8" {...common} />,
    audit: <path d="M9 5h14v22H9z M13 11h6M13 15h6M13 19h3" {...common} />,
    access: <path d="M10 14V10a6 6 0 0 1 12 0v4 M8 14h16v12H8z M16 19v3" {...common} />,
    security: <path d="M6 16a10 10 0 1 0 20 0a10 10 0 1 0-20 0 M16 10v6l4 3" {...common} />,
  }
  return (
    <svg className="pub-icon" viewBox="0 0 32 32" width="32" height="32" aria-hidden="true" focusable="false">
      {paths[kind]}
    </svg>
  )
}

const AVATAR_TONES = ['#034507', '#2bb32a', '#1f6f50', '#4a7c2a', '#0e5a5a', '#6b8e23']

/** An illustrated portrait: initials on a tone picked from the name, with a simple bust. */
export function Avatar({ name, size = 96 }: { name: string; size?: number }) {
  const initials = name
    .split(/\s+/)
    .filter(Boolean)
    .map((w) => w[0])
    .slice(0, 2)
    .join('')
    .toUpperCase()
  const tone = AVATAR_TONES[[...name].reduce((acc, c) => acc + c.charCodeAt(0), 0) % AVATAR_TONES.length]
  return (
    <svg className="pub-avatar" width={size} height={size} viewBox="0 0 96 96" role="img" aria-label={name}>
      <circle cx="48" cy="48" r="48" fill={tone} />
      <circle cx="48" cy="48" r="44" fill="none" stroke="#ffffff33" strokeWidth="2" />
      <path d="M18 88c4-16 16-24 30-24s26 8 30 24" fill="#ffffff26" />
      <text x="48" y="54" textAnchor="middle" fontSize="28" fontWeight="700" fill="#fff" fontFamily="inherit">
        {initials}
      </text>
    </svg>
  )
}

/** The team video's poster: people around a table, drawn with shapes. */
export function TeamPoster({ label }: { label: string }) {
  // Two groups around the table, the middle left free for the play button.
  const people = [
    { x: 70, tone: P },
    { x: 150, tone: S },
    { x: 340, tone: '#1f6f50' },
    { x: 420, tone: '#4a7c2a' },
  ]
  return (
    <svg className="pub-team-art" viewBox="0 0 490 276" role="img" aria-label={label} preserveAspectRatio="xMidYMid slice">
      <rect width="490" height="276" fill={L} />
      <rect x="0" y="200" width="490" height="76" fill={P} opacity="0.12" />
      <rect x="175" y="18" width="140" height="64" rx="8" fill="#fff" opacity="0.85" />
      {[0, 1, 2].map((i) => (
        <rect key={i} x={203 + i * 32} y={70 - (i + 1) * 14} width="20" height={(i + 1) * 14} rx="3" fill={i === 2 ? S : P} opacity="0.8" />
      ))}
      {people.map((p) => (
        <g key={p.x}>
          <circle cx={p.x} cy="136" r="20" fill="#f1d7c4" />
          <path d={`M${p.x - 34} 200c0-30 15-46 34-46s34 16 34 46z`} fill={p.tone} />
        </g>
      ))}
      <rect x="50" y="192" width="390" height="14" rx="7" fill={P} />
    </svg>
  )
}

/** An illustrated map around the office (no map tiles are downloaded). */
export function MapArt({ label }: { label: string }) {
  return (
    <svg className="pub-map-art" viewBox="0 0 400 220" role="img" aria-label={label} preserveAspectRatio="xMidYMid slice">
      <rect width="400" height="220" fill={L} />
      <path d="M0 150L400 60" stroke="#fff" strokeWidth="18" />
      <path d="M120 0L200 220M300 0l-60 220M0 40l400 120" stroke="#ffffffb0" strokeWidth="8" />
      <rect x="30" y="170" width="70" height="40" rx="6" fill={S} opacity="0.35" />
      <rect x="300" y="150" width="80" height="56" rx="6" fill={S} opacity="0.35" />
      <g transform="translate(206 52)">
        <path d="M0 40C-14 22-18 14-18 6a18 18 0 0 1 36 0c0 8-4 16-18 34z" fill={P} />
        <circle cx="0" cy="6" r="7" fill="#fff" />
      </g>
    </svg>
  )
}
