import { Link } from 'react-router'
import { useTranslation } from 'react-i18next'

export interface Crumb {
  label: string
  to?: string
}

export default function Breadcrumbs({ items }: { items: Crumb[] }) {
  const { t } = useTranslation()
  return (
    <nav className="breadcrumbs" aria-label={t('app.breadcrumb')}>
      <ol>
        {items.map((item, i) => (
          <li key={`${item.label}-${i}`} aria-current={i === items.length - 1 ? 'page' : undefined}>
            {item.to ? <Link to={item.to}>{item.label}</Link> : <span>{item.label}</span>}
          </li>
        ))}
      </ol>
    </nav>
  )
}
