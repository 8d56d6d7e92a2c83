import { describe, expect, it } from 'vitest'
import type { RoleMenuEntry } from '../types/api'
import { isRouteAllowed, routeDecision, routeNameOf } from './permissions'

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

describe('routeDecision', () => {
  it.each<[string, string, RoleMenuEntry[] | undefined, boolean, string]>([
    // rule, route, roles, roles call failed, decision
    ['in the menu', 'normal-query', roles, false, 'allow'],
    ['deep in the children', 'advanced-query-result', roles, false, 'allow'],
    ['not in the menu', 'users', roles, false, 'forbid'],
    ['not in an empty menu', 'dashboard', [], false, 'forbid'],
    ['always allowed, no roles yet', 'my-account', undefined, false, 'allow'],
    ['always allowed, roles call failed', 'error-forbidden', undefined, true, 'allow'],
    ['roles on their way', 'dashboard', undefined, false, 'wait'],
    ['roles never read', 'dashboard', undefined, true, 'error'],
    // a refresh that failed keeps the cached roles deciding
    ['cached roles after a failed refresh: allowed', 'dashboard', roles, true, 'allow'],
    ['cached roles after a failed refresh: refused', 'reports', roles, true, 'forbid'],
  ])('%s', (_rule, route, list, failed, decision) => {
    expect(routeDecision(route, list, failed)).toBe(decision)
  })
})
