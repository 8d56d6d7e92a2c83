import { NavLink } from 'react-router'
import { useTranslation } from 'react-i18next'
import type { RoleMenuEntry } from '../types/api'

function routePath(route: string): string {
  return `/${route.replace(/^\/+/, '')}`
}

function Entry({ entry }: { entry: RoleMenuEntry }) {
  const { t } = useTranslation()
  const label = t(entry.label, { defaultValue: entry.name })
  const children = (entry.children ?? []).filter((c) => c.label)
  if (children.length > 0) {
    return (
      <li className="nav-group">
        <button type="button" className="nav-group-label" aria-haspopup="true">
          {label}
        </button>
        <ul className="nav-submenu">
          {children.map((child) => (
            <Entry key={child.name} entry={child} />
          ))}
        </ul>
      </li>
    )
  }
  if (!entry.route) return null
  return (
    <li>
      <NavLink to={routePath(entry.route)} data-testid={`nav-${entry.name}`}>
        {label}
      </NavLink>
    </li>
  )
}

/** Navigation built from the user's role menu tree. */
export default function MainNav({ roles }: { roles: RoleMenuEntry[] }) {
  const { t } = useTranslation()
  return (
    <nav className="main-nav" aria-label={t('app.mainNav')}>
      <ul>
        {roles
          .filter((entry) => entry.label)
          .map((entry) => (
            <Entry key={entry.name} entry={entry} />
          ))}
      </ul>
    </nav>
  )
}
