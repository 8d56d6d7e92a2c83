import { describe, expect, it } from 'vitest'
import type { RoleMenuEntry } from '../types/api'
import { isRouteAllowed, routeNameOf } from './permissions'

const roles: RoleMenuEntry[] = [
  { name: 'dashboard', label: 'menu.dashboard', icon: 'dashboard', route: '/dashboard', active_routes: ['dashboard'], children: [] },
  {
    name: 'queries',
    label: 'menu.queries',
    icon: 'search',
    route: null,
    active_routes: [],
    children: [
      {
        name: 'normal-query',
        label: 'menu.normalQuery',
        icon: 'person',
        route: '/normal-query',
        active_routes: ['normal-query', 'query-result'],
        children: [
          // a malformed entry (no children list) is read as having none
          { name: 'deep', label: 'x', icon: '', route: null, active_routes: ['advanced-query-result'], children: null } as unknown as RoleMenuEntry,
        ],
      },
    ],
  },
  { name: 'broken', label: 'menu.reports', icon: '', route: '/reports', active_routes: null } as unknown as RoleMenuEntry,
]

describe('isRouteAllowed', () => {
  it.each<[string, RoleMenuEntry[] | null, boolean]>([
    ['dashboard', roles, true],
    ['normal-query', roles, true],
    ['query-result', roles, true],
    ['advanced-query-result', roles, true],
    ['reports', roles, false],
    ['users', roles, false],
    ['queries', roles, false],
    ['error-forbidden', [], true],
    ['my-account', [], true],
    ['personal-information', null, true],
    ['edit-my-profile', null, true],
    ['dashboard', [], false],
    ['dashboard', null, false],
    ['', roles, false],
  ])('%s -> %s', (route, list, allowed) => {
    expect(isRouteAllowed(route, list)).toBe(allowed)
  })
})

describe('routeNameOf', () => {
  it.each([
    ['/dashboard', 'dashboard'],
    ['/query-result/12345678909/cpf', 'query-result'],
    ['/', ''],
    ['/users/', 'users'],
  ])('%s -> %s', (path, name) => expect(routeNameOf(path)).toBe(name))
})
