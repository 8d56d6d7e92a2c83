import { useTranslation } from 'react-i18next'
import { formatDateBR, formatNumber } from '../../lib/format'
import type { ConsumptionDay } from '../../store/generated/bemteviApi'
import { CATEGORIES, type CategoryName } from './categories'

const COLORS: Record<CategoryName, string> = {
  unit: 'var(--primary)',
  advanced: 'var(--secondary)',
  batch: '#31CCEC',
  api: '#EDBD43',
}

const HEIGHT = 160
const BAR = 18
const GAP = 6

/** Credits consumed per day, stacked by category: an SVG with a text alternative per bar. */
export default function ConsumptionChart({ days }: { days: ConsumptionDay[] }) {
  const { t, i18n } = useTranslation()
  if (days.length === 0) return <p className="muted">{t('credits.chart.empty')}</p>
  const byDay = new Map<string, Partial<Record<CategoryName, number>>>()
  for (const d of days) byDay.set(d.day, { ...byDay.get(d.day), [d.category]: d.credits })
  const entries = [...byDay.entries()].sort(([a], [b]) => a.localeCompare(b))
  const max = Math.max(1, ...entries.map(([, v]) => Object.values(v).reduce((s, n) => s + (n ?? 0), 0)))
  const width = entries.length * (BAR + GAP) + GAP
  const used = CATEGORIES.filter((c) => days.some((d) => d.category === c))
  return (
    <figure className="consumption-chart">
      <svg
        role="img"
        aria-label={t('credits.chart.title')}
        viewBox={`0 0 ${width} ${HEIGHT}`}
        preserveAspectRatio="none"
        data-testid="consumption-chart"
      >
        {entries.map(([day, values], index) => {
          let top = HEIGHT
          const total = Object.values(values).reduce((s, n) => s + (n ?? 0), 0)
          return (
            <g key={day} data-testid="consumption-bar">
              <title>
                {t('credits.chart.bar', { day: formatDateBR(day) ?? day, credits: formatNumber(total, i18n.language) })}
              </title>
              {CATEGORIES.map((category) => {
                const value = values[category] ?? 0
                if (!value) return null
                const height = (value / max) * (HEIGHT - 8)
                top -= height
                return (
                  <rect
                    key={category}
                    x={GAP + index * (BAR + GAP)}
                    y={top}
                    width={BAR}
                    height={height}
                    fill={COLORS[category]}
                  />
                )
              })}
            </g>
          )
        })}
      </svg>
      <figcaption className="chart-legend">
        {used.map((c) => (
          <span key={c}>
            <i style={{ background: COLORS[c] }} aria-hidden="true" /> {t(`credits.categories.${c}`)}
          </span>
        ))}
        <span className="muted">
          {formatDateBR(entries[0][0])} – {formatDateBR(entries[entries.length - 1][0])}
        </span>
      </figcaption>
    </figure>
  )
}
