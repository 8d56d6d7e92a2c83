import { useState } from 'react'
import { NavLink, useLocation } from 'react-router'
import { useTranslation } from 'react-i18next'
import Collapse from '@mui/material/Collapse'
import List from '@mui/material/List'
import ListItemButton from '@mui/material/ListItemButton'
import ListItemIcon from '@mui/material/ListItemIcon'
import ListItemText from '@mui/material/ListItemText'
import { alpha, type Theme } from '@mui/material/styles'
import MenuIcon from '../components/menuIcons'
import { routeNameOf } from '../lib/permissions'
import type { RoleMenuEntry } from '../types/api'

function routePath(route: string): string {
  return `/${route.replace(/^\/+/, '')}`
}

/** Whether the current route belongs to this entry or one of its children. */
function holds(entry: RoleMenuEntry, routeName: string): boolean {
  return (entry.active_routes ?? []).includes(routeName) || (entry.children ?? []).some((c) => holds(c, routeName))
}

const ITEM = { listStyle: 'none' } as const

/** An entry's icon in the colour of its text (the brand's primary on the followed link). */
function EntryIcon({ entry }: { entry: RoleMenuEntry }) {
  return (
    <ListItemIcon sx={{ minWidth: 32, color: 'inherit' }}>
      <MenuIcon name={entry.icon} />
    </ListItemIcon>
  )
}

/** The followed link wears the brand's primary colour (NavLink adds `active`). */
const linkSx = (depth: number) => (theme: Theme) => ({
  pl: 2 + depth * 2,
  borderRadius: 1,
  mx: 1,
  '&.active': {
    bgcolor: alpha(theme.palette.primary.main, 0.12),
    color: theme.palette.primary.main,
    '& .MuiListItemText-primary': { fontWeight: 700 },
  },
})

/**
 * The sidebar's navigation, built from the user's role menu tree: a section folds its children
 * (the one holding the current route starts open); each link is a router NavLink.
 */
export default function MainNav({ roles, id }: { roles: RoleMenuEntry[]; id?: string }) {
  const { t } = useTranslation()
  const { pathname } = useLocation()
  const routeName = routeNameOf(pathname)
  const [toggled, setToggled] = useState<Record<string, boolean>>({})
  const label = (e: RoleMenuEntry) => t(e.label, { defaultValue: e.name })

  return (
    <nav className="main-nav" id={id} aria-label={t('app.mainNav')}>
      <List dense disablePadding sx={{ py: 1 }}>
        {roles
          .filter((entry) => entry.label)
          .map((entry) => {
            const children = (entry.children ?? []).filter((c) => c.label && c.route)
            if (children.length === 0) {
              if (!entry.route) return null
              return (
                <li key={entry.name} style={ITEM}>
                  <ListItemButton component={NavLink} to={routePath(entry.route)} sx={linkSx(0)} data-testid={`nav-${entry.name}`}>
                    <EntryIcon entry={entry} />
                    <ListItemText primary={label(entry)} />
                  </ListItemButton>
                </li>
              )
            }
            const current = holds(entry, routeName)
            const open = toggled[entry.name] ?? current
            const subId = `nav-sub-${entry.name}`
            return (
              <li key={entry.name} style={ITEM}>
                <ListItemButton
                  component="button"
                  onClick={() => setToggled((o) => ({ ...o, [entry.name]: !open }))}
                  aria-expanded={open}
                  aria-controls={subId}
                  data-testid={`nav-${entry.name}`}
                  sx={(theme: Theme) => ({
                    mx: 1,
                    borderRadius: 1,
                    width: 'calc(100% - 16px)',
                    ...(current && { color: theme.palette.primary.main }),
                  })}
                >
                  <EntryIcon entry={entry} />
                  <ListItemText primary={label(entry)} slotProps={{ primary: { sx: { fontWeight: 600 } } }} />
                  <span aria-hidden="true" style={{ transition: 'transform .15s', transform: open ? 'rotate(180deg)' : 'none' }}>
                    ▾
                  </span>
                </ListItemButton>
                <Collapse in={open} timeout="auto">
                  <List dense disablePadding id={subId}>
                    {children.map((child) => (
                      <li key={child.name} style={ITEM}>
                        <ListItemButton component={NavLink} to={routePath(child.route!)} sx={linkSx(1)} data-testid={`nav-${child.name}`}>
                          <EntryIcon entry={child} />
                          <ListItemText primary={label(child)} />
                        </ListItemButton>
                      </li>
                    ))}
                  </List>
                </Collapse>
              </li>
            )
          })}
      </List>
    </nav>
  )
}
