import { useEffect, useRef, useState } from 'react'
import { NavLink, useLocation } from 'react-router'
import { useTranslation } from 'react-i18next'
import { routeNameOf } from '../lib/permissions'
import type { RoleMenuEntry } from '../types/api'

function routePath(route: string): string {
  return `/${route.replace(/^\/+/, '')}`
}

/** Whether the current route belongs to this entry or one of its children. */
function holds(entry: RoleMenuEntry, routeName: string): boolean {
  return (entry.active_routes ?? []).includes(routeName) || (entry.children ?? []).some((c) => holds(c, routeName))
}

function Entry({
  entry,
  open,
  onToggle,
  routeName,
}: {
  entry: RoleMenuEntry
  open: boolean
  onToggle: () => void
  routeName: string
}) {
  const { t } = useTranslation()
  const label = t(entry.label, { defaultValue: entry.name })
  const children = (entry.children ?? []).filter((c) => c.label && c.route)
  if (children.length > 0) {
    const id = `nav-sub-${entry.name}`
    return (
      <li className={`nav-group${open ? ' open' : ''}${holds(entry, routeName) ? ' current' : ''}`}>
        <button
          type="button"
          className="nav-group-label"
          aria-expanded={open}
          aria-controls={id}
          onClick={onToggle}
          data-testid={`nav-${entry.name}`}
        >
          {label}
          <span className="nav-caret" aria-hidden="true" />
        </button>
        <ul className="nav-submenu" id={id}>
          {children.map((child) => (
            <li key={child.name}>
              <NavLink to={routePath(child.route!)} data-testid={`nav-${child.name}`}>
                {t(child.label, { defaultValue: child.name })}
              </NavLink>
            </li>
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

/** Navigation built from the user's role menu tree: sections open on click (or hover on wide screens). */
export default function MainNav({ roles, id }: { roles: RoleMenuEntry[]; id?: string }) {
  const { t } = useTranslation()
  const { pathname } = useLocation()
  const [open, setOpen] = useState<string | null>(null)
  // A followed link closes the open section.
  const [openPath, setOpenPath] = useState(pathname)
  if (openPath !== pathname) {
    setOpenPath(pathname)
    setOpen(null)
  }
  const navRef = useRef<HTMLElement>(null)

  // An open section closes on Escape or on a click elsewhere.
  useEffect(() => {
    if (!open) return
    const onKey = (e: KeyboardEvent) => {
      if (e.key === 'Escape') setOpen(null)
    }
    const onClick = (e: MouseEvent) => {
      if (navRef.current && !navRef.current.contains(e.target as Node)) setOpen(null)
    }
    document.addEventListener('keydown', onKey)
    document.addEventListener('mousedown', onClick)
    return () => {
      document.removeEventListener('keydown', onKey)
      document.removeEventListener('mousedown', onClick)
    }
  }, [open])

  return (
    <nav className="main-nav" id={id} ref={navRef} aria-label={t('app.mainNav')}>
      <ul>
        {roles
          .filter((entry) => entry.label)
          .map((entry) => (
            <Entry
              key={entry.name}
              entry={entry}
              routeName={routeNameOf(pathname)}
              open={open === entry.name}
              onToggle={() => setOpen((o) => (o === entry.name ? null : entry.name))}
            />
          ))}
      </ul>
    </nav>
  )
}
