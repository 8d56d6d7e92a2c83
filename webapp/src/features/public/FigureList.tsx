import { useTranslation } from 'react-i18next'
import CountUp from './CountUp'
import type { Figure } from './figures'

/** Figures with their labels, each counting up when it comes into view. */
export default function FigureList({ figures, className = '' }: { figures: Figure[]; className?: string }) {
  const { t } = useTranslation()
  return (
    <dl className={`pub-figures ${className}`}>
      {figures.map((f) => (
        <div key={f.key} className="pub-figure">
          <dt>{t(`public.stats.${f.key}`)}</dt>
          <dd>
            <CountUp to={f.value} prefix={f.prefix} suffix={f.suffixKey ? t(f.suffixKey) : f.suffix} testId={`figure-${f.key}`} />
          </dd>
        </div>
      ))}
    </dl>
  )
}
