import { act, fireEvent, render, screen, waitFor } from '@testing-library/react'
import { lazy, useLayoutEffect } from 'react'
import { Provider } from 'react-redux'
import { MemoryRouter, useLocation, useNavigate } from 'react-router'
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import BrandApplier from '../components/BrandApplier'
import WarningDialog from '../components/WarningDialog'
import { LoadingOverlay } from '../components/feedback'
import i18n from '../i18n'
import { makeStore } from '../store'
import { setCredentials } from '../store/authSlice'
import { group, user } from '../test/fixtures'
import type { RoleMenuEntry } from '../types/api'
import { AppRoutes } from './AppRoutes'
import { refreshBeforeNavigation, refreshOutcome, type RefreshOutcome, type RefreshRuleInput } from './frameRefresh'
import { hostIsMain, parseDomainList } from './mainDomain'
import { routeTable, type RouteEntry } from './routeTable'

const Home = lazy(async () => ({ default: () => <h1 data-testid="home">home</h1> }))
const Users = lazy(async () => ({ default: () => <h1 data-testid="users">users</h1> }))
const MyAccount = lazy(async () => ({ default: () => <h1 data-testid="my-account">my account</h1> }))
/** Screens drawn, in order: a screen the roles refuse must never get here, not even for a moment. */
let drawn: string[] = []
function CustomersScreen() {
  useLayoutEffect(() => {
    drawn.push('customer-list')
  }, [])
  return <button type="button" data-testid="customer-add" />
}
const Customers = lazy(async () => ({ default: CustomersScreen }))

/** The real table plus the lines the other screens add (a public home, users, my-account). */
const table: RouteEntry[] = [
  { name: 'home', path: '', layout: 'public', guard: 'main-domain', component: Home },
  { name: 'customer-list', path: 'customer-list', layout: 'signed-in', component: Customers },
  { name: 'users', path: 'users/:groupUniqueKey?/:groupId?', layout: 'signed-in', component: Users },
  { name: 'my-account', path: 'my-account', layout: 'signed-in', component: MyAccount },
  { name: 'personal-information', path: 'personal-information/:previousRoute?', layout: 'signed-in', component: MyAccount },
  { name: 'edit-my-profile', path: 'edit-my-profile/:previousRoute?', layout: 'signed-in', component: MyAccount },
  ...routeTable.filter((r) => !['home', 'customer-list', 'users', 'my-account', 'personal-information', 'edit-my-profile'].includes(r.name)),
]

const menu: RoleMenuEntry[] = [
  {
    name: 'register',
    label: 'menu.register',
    icon: 'register',
    route: null,
    active_routes: [],
    children: [{ name: 'customers', label: 'menu.customers', icon: 'customers', route: 'customer-list', active_routes: ['customer-list', 'add-new-customer'], children: [] }],
  },
  {
    name: 'queries',
    label: 'menu.queries',
    icon: 'search',
    route: null,
    active_routes: [],
    children: [
      {
        name: 'advanced-query',
        label: 'menu.advancedQuery',
        icon: 'search',
        route: 'advanced-query',
        active_routes: ['advanced-query'],
        // found only by searching children of children
        children: [{ name: 'deep', label: '', icon: '', route: null, active_routes: ['advanced-query-result-list'], children: [] }],
      },
    ],
  },
  { name: 'dashboard', label: 'menu.dashboard', icon: 'dashboard', route: 'dashboard', active_routes: ['dashboard'], children: [] },
]

let calls: { key: string; body: unknown }[] = []
let mainDomain = true
/** The role menu the server answers now (an admin may change it between two navigations). */
let roleMenu: RoleMenuEntry[] = menu
/** While set, the roles call answers only once it resolves. */
let rolesGate: Promise<void> | null = null
/** While set, the group's public data (signed in) answers only once it resolves. */
let groupGate: Promise<void> | null = null
/** How the roles call fails, if it does. */
let rolesFailure: 'network' | 'expired' | null = null
const menuWithout = (route: string): RoleMenuEntry[] =>
  menu.map((entry) => ({ ...entry, children: (entry.children ?? []).filter((c) => !(c.active_routes ?? []).includes(route)) }))

function mockApi() {
  calls = []
  vi.stubGlobal(
    'fetch',
    vi.fn(async (input: Request) => {
      const url = new URL(input.url)
      const key = `${input.method} ${url.pathname}`
      const text = input.method === 'GET' ? '' : await input.text()
      calls.push({ key, body: text ? JSON.parse(text) : undefined })
      let body: unknown = { statusCode: 404, message: 'Not found' }
      let status = 200
      if (key === 'POST /api/group/groups-get-public-data') {
        if (groupGate && text.includes('group_id')) await groupGate
        body = { data: { ...group, isMainDomain: mainDomain } }
      }
      else if (key === 'POST /api/user-roles/get-user-roles-by-id') {
        if (rolesGate) await rolesGate
        if (rolesFailure === 'network') throw new TypeError('Failed to fetch')
        if (rolesFailure === 'expired') {
          status = 401
          body = { statusCode: 401, message: 'Sessão expirada' }
        } else body = { data: { group, roles: roleMenu } }
      }
      else if (key === 'GET /api/dashboard') body = { data: { consultationsTotal: 3, consultationsToday: 1, byDay: [], credits: { unit: { used: 1, limit: null } }, batches: [] } }
      else status = 404
      return new Response(JSON.stringify(body), { status, headers: { 'Content-Type': 'application/json' } })
    }),
  )
}

function Location() {
  const location = useLocation()
  const navigate = useNavigate()
  return (
    <>
      <output data-testid="location">{`${location.pathname}${location.search}`}</output>
      <button type="button" data-testid="go-customers" onClick={() => void navigate('/customer-list')} />
      <button type="button" data-testid="go-customers-page-2" onClick={() => void navigate('/customer-list?page=2')} />
      <button type="button" data-testid="go-dashboard" onClick={() => void navigate('/dashboard')} />
    </>
  )
}

function renderAt(path: string, signedIn: boolean) {
  if (signedIn) {
    localStorage.setItem('authToken', 'tok-1')
    localStorage.setItem('authUser', JSON.stringify(user))
  }
  const store = makeStore()
  render(
    <Provider store={store}>
      <MemoryRouter initialEntries={[path]}>
        <BrandApplier />
        <AppRoutes table={table} />
        <Location />
        <WarningDialog />
        <LoadingOverlay />
      </MemoryRouter>
    </Provider>,
  )
  return store
}

const location = () => screen.getByTestId('location').textContent

beforeEach(async () => {
  await i18n.changeLanguage('pt-BR')
  mainDomain = true
  roleMenu = menu
  rolesGate = null
  groupGate = null
  rolesFailure = null
  drawn = []
  mockApi()
})
afterEach(() => vi.unstubAllGlobals())

describe('routing rules', () => {
  it.each<[string, string, boolean, boolean, string, string]>([
    // rule, start, signed in, main domain, where it ends, what shows
    ['main domain shows the home page', '/', false, true, '/', 'home'],
    ['main domain shows home to a signed-in user too', '/', true, true, '/', 'home'],
    ['other host: / goes to /login', '/', false, false, '/login', 'login-submit'],
    ['other host, signed in: / -> /login -> /dashboard', '/', true, false, '/dashboard', 'dashboard-total'],
    ['signed-in user going to login goes to the dashboard', '/login', true, true, '/dashboard', 'dashboard-total'],
    ['signed-in user on /login?redirect= goes there', '/login?redirect=%2Fcustomer-list', true, true, '/customer-list', 'customer-add'],
    ['redirect outside the site is ignored', '/login?redirect=%2F%2Fevil.example', true, true, '/dashboard', 'dashboard-total'],
    ['unauthenticated deep link remembers path and search', '/customer-list?page=2&q=a', false, true, '/login?redirect=%2Fcustomer-list%3Fpage%3D2%26q%3Da', 'login-submit'],
    ['unauthenticated on a route with params', '/add-new-customer/k-1/9', false, true, '/login?redirect=%2Fadd-new-customer%2Fk-1%2F9', 'login-submit'],
    ['route in active_routes of a child entry', '/customer-list', true, true, '/customer-list', 'customer-add'],
    ['route found deep in the children', '/advanced-query-result-list/Ana', true, true, '/advanced-query-result-list/Ana', 'advanced-new-search'],
    ['route not in any menu entry -> error-forbidden', '/users', true, true, '/error-forbidden', 'forbidden'],
    ['screen not built, not in the menu -> error-forbidden', '/reports', true, true, '/error-forbidden', 'forbidden'],
    ['error-forbidden is always allowed', '/error-forbidden', true, true, '/error-forbidden', 'forbidden'],
    ['my-account is always allowed', '/my-account', true, true, '/my-account', 'my-account'],
    ['personal-information is always allowed', '/personal-information/dashboard', true, true, '/personal-information/dashboard', 'my-account'],
    ['edit-my-profile is always allowed', '/edit-my-profile', true, true, '/edit-my-profile', 'my-account'],
    ['unknown path -> not found (signed out)', '/no/such/page', false, true, '/no/such/page', 'not-found'],
    ['unknown path -> not found (signed in)', '/nope', true, true, '/nope', 'not-found'],
  ])('%s', async (_rule, start, signedIn, main, end, testId) => {
    mainDomain = main
    renderAt(start, signedIn)
    await waitFor(() => expect(location()).toBe(end))
    expect(await screen.findByTestId(testId)).toBeInTheDocument()
  })

  it('goes back to the full remembered path once signed in', async () => {
    const store = renderAt('/customer-list?page=2', false)
    await waitFor(() => expect(location()).toBe('/login?redirect=%2Fcustomer-list%3Fpage%3D2'))
    act(() => {
      store.dispatch(setCredentials({ token: 'tok-1', user }))
    })
    await waitFor(() => expect(location()).toBe('/customer-list?page=2'))
  })

  it('reloads the roles and the group public data before each navigation', async () => {
    renderAt('/dashboard', true)
    expect(await screen.findByTestId('dashboard-total')).toBeInTheDocument()
    const count = (key: string) => calls.filter((c) => c.key === key).length
    const roles0 = count('POST /api/user-roles/get-user-roles-by-id')
    const group0 = calls.filter((c) => JSON.stringify(c.body) === JSON.stringify({ group_id: '3', group_unique_key: 'g-3' })).length
    fireEvent.click(screen.getByTestId('go-customers'))
    await waitFor(() => expect(count('POST /api/user-roles/get-user-roles-by-id')).toBeGreaterThan(roles0))
    await waitFor(() =>
      expect(calls.filter((c) => JSON.stringify(c.body) === JSON.stringify({ group_id: '3', group_unique_key: 'g-3' })).length).toBeGreaterThan(group0),
    )
  })

  it('the decision waits for the refreshed roles: a route the role lost since the last navigation is refused at once, never drawn', async () => {
    renderAt('/dashboard', true)
    expect(await screen.findByTestId('dashboard-total')).toBeInTheDocument()
    // The cached menu still has customers (its link is on screen); the server's no longer has.
    roleMenu = menuWithout('customer-list')
    fireEvent.click(screen.getByTestId('go-customers'))
    await waitFor(() => expect(location()).toBe('/error-forbidden'))
    expect(await screen.findByTestId('forbidden')).toBeInTheDocument()
    expect(drawn).toEqual([])
    expect(screen.queryByTestId('nav-customers')).not.toBeInTheDocument()
  })

  it('a route the role gained since the last navigation opens on the very next one', async () => {
    roleMenu = menuWithout('customer-list')
    renderAt('/dashboard', true)
    expect(await screen.findByTestId('dashboard-total')).toBeInTheDocument()
    roleMenu = menu
    fireEvent.click(screen.getByTestId('go-customers'))
    expect(await screen.findByTestId('customer-add')).toBeInTheDocument()
    expect(location()).toBe('/customer-list')
    expect(drawn).toEqual(['customer-list'])
  })

  it('keeps the previous page on screen, with the loading overlay, until the refresh answers', async () => {
    renderAt('/dashboard', true)
    expect(await screen.findByTestId('dashboard-total')).toBeInTheDocument()
    let answer = () => {}
    rolesGate = new Promise<void>((resolve) => {
      answer = resolve
    })
    const before = calls.length
    fireEvent.click(screen.getByTestId('go-customers'))
    expect(await screen.findByTestId('loading-overlay')).toBeInTheDocument()
    expect(location()).toBe('/customer-list')
    expect(screen.getByTestId('dashboard-total')).toBeInTheDocument()
    expect(drawn).toEqual([])
    // both reads went out before anything was decided
    expect(calls.slice(before).map((c) => c.key).sort()).toEqual(['POST /api/group/groups-get-public-data', 'POST /api/user-roles/get-user-roles-by-id'])
    await act(async () => answer())
    expect(await screen.findByTestId('customer-add')).toBeInTheDocument()
    await waitFor(() => expect(screen.queryByTestId('loading-overlay')).not.toBeInTheDocument())
    expect(screen.queryByTestId('dashboard-total')).not.toBeInTheDocument()
  })

  it('fresh roles arriving while the navigation still waits do not redirect the page left behind', async () => {
    renderAt('/customer-list', true)
    expect(await screen.findByTestId('customer-add')).toBeInTheDocument()
    // Customers is gone from the role: the roles answer at once, the group data later.
    roleMenu = menuWithout('customer-list')
    let answer = () => {}
    groupGate = new Promise<void>((resolve) => {
      answer = resolve
    })
    const roles0 = calls.filter((c) => c.key === 'POST /api/user-roles/get-user-roles-by-id').length
    fireEvent.click(screen.getByTestId('go-dashboard'))
    await waitFor(() => expect(screen.queryByTestId('nav-customers')).not.toBeInTheDocument())
    expect(calls.filter((c) => c.key === 'POST /api/user-roles/get-user-roles-by-id').length).toBe(roles0 + 1)
    expect(screen.getByTestId('customer-add')).toBeInTheDocument()
    expect(location()).toBe('/dashboard')
    await act(async () => answer())
    expect(await screen.findByTestId('dashboard-total')).toBeInTheDocument()
    expect(location()).toBe('/dashboard')
  })

  it('a list changing its query string stays on its screen without waiting for a refresh', async () => {
    renderAt('/customer-list', true)
    expect(await screen.findByTestId('customer-add')).toBeInTheDocument()
    const roles0 = calls.filter((c) => c.key === 'POST /api/user-roles/get-user-roles-by-id').length
    fireEvent.click(screen.getByTestId('go-customers-page-2'))
    await waitFor(() => expect(location()).toBe('/customer-list?page=2'))
    expect(screen.getByTestId('customer-add')).toBeInTheDocument()
    expect(calls.filter((c) => c.key === 'POST /api/user-roles/get-user-roles-by-id').length).toBe(roles0)
    expect(drawn).toEqual(['customer-list'])
  })

  it('a network failure of the refresh falls back to the cached roles instead of blocking the navigation', async () => {
    renderAt('/dashboard', true)
    expect(await screen.findByTestId('dashboard-total')).toBeInTheDocument()
    rolesFailure = 'network'
    fireEvent.click(screen.getByTestId('go-customers'))
    expect(await screen.findByTestId('customer-add')).toBeInTheDocument()
    expect(location()).toBe('/customer-list')
  })

  it('a 401 on the refresh follows the Warning dialog to /login, the refused screen never drawn', async () => {
    renderAt('/dashboard', true)
    expect(await screen.findByTestId('dashboard-total')).toBeInTheDocument()
    rolesFailure = 'expired'
    fireEvent.click(screen.getByTestId('go-customers'))
    expect(await screen.findByTestId('warning-dialog')).toHaveTextContent('Sessão expirada')
    expect(screen.getByTestId('dashboard-total')).toBeInTheDocument()
    fireEvent.click(screen.getByTestId('warning-ok'))
    await waitFor(() => expect(location()).toBe('/login?redirect=%2Fcustomer-list'))
    expect(drawn).toEqual([])
  })

  it('the not-found page leads back to home', async () => {
    renderAt('/nope', false)
    fireEvent.click(await screen.findByText('Voltar ao início'))
    await waitFor(() => expect(location()).toBe('/'))
    expect(await screen.findByTestId('home')).toBeInTheDocument()
  })

  it('names every route of spec section 2 that the frame owns, each once', () => {
    const names = routeTable.map((r) => r.name)
    expect(new Set(names).size).toBe(names.length)
    for (const name of ['login', 'dashboard', 'queries-list', 'layout-list', 'add-new-layout', 'supplier-list', 'add-new-supplier',
      'customer-list', 'add-new-customer', 'normal-query', 'query-result', 'advanced-query', 'advanced-query-result-list',
      'advanced-query-result', 'batch-query', 'api-query', 'reports', 'playground', 'error-forbidden', 'balances', 'balance-history']) {
      expect(names).toContain(name)
    }
    // all parameters optional
    for (const r of routeTable) for (const p of r.path.split('/').filter((s) => s.startsWith(':'))) expect(p.endsWith('?')).toBe(true)
  })
})

describe('refresh before a navigation', () => {
  const signedInRoutes = ['dashboard', 'customer-list', 'my-account', 'error-forbidden']
  it.each<[string, Omit<RefreshRuleInput, 'signedInRoutes'>, boolean]>([
    ['another signed-in screen', { from: '/dashboard', to: '/customer-list', signedIn: true }, true],
    ['an always-allowed screen (the menu refreshes too)', { from: '/dashboard', to: '/my-account', signedIn: true }, true],
    ['from the login page into the signed-in area', { from: '/login', to: '/dashboard', signedIn: true }, true],
    ['the same path (a list query string)', { from: '/customer-list', to: '/customer-list', signedIn: true }, false],
    ['the forbidden page, reached right after a decision', { from: '/customer-list', to: '/error-forbidden', signedIn: true }, false],
    ['a page outside the signed-in area', { from: '/dashboard', to: '/about', signedIn: true }, false],
    ['an unknown path', { from: '/dashboard', to: '/nope', signedIn: true }, false],
    ['signed out (the guard sends to /login)', { from: '/about', to: '/dashboard', signedIn: false }, false],
  ])('%s', (_rule, input, expected) => expect(refreshBeforeNavigation({ ...input, signedInRoutes })).toBe(expected))

  it.each<[string, Parameters<typeof refreshOutcome>[0], RefreshOutcome]>([
    ['both answered', [undefined, undefined], 'fresh'],
    ['no group to read', [undefined], 'fresh'],
    ['network down: cached data', [{ status: 'FETCH_ERROR', error: 'TypeError: Failed to fetch' }, undefined], 'cached'],
    ['server error: cached data', [undefined, { status: 500, data: { message: 'boom' } }], 'cached'],
    ['401 on the roles: the Warning dialog leads', [{ status: 401, data: { message: 'Sessão expirada' } }, undefined], 'expired'],
    ['401 on the group data', [{ status: 'FETCH_ERROR', error: 'x' }, { status: 401, data: {} }], 'expired'],
  ])('%s', (_rule, errors, outcome) => expect(refreshOutcome(errors)).toBe(outcome))
})

describe('main domain', () => {
  it.each<[string, string, boolean]>([
    ['localhost:8000', 'localhost,127.0.0.1', true],
    ['127.0.0.2:8000', 'localhost,127.0.0.1', false],
    ['www.bemtevi.com.br', 'bemtevi.com.br', true],
    ['acme.example', 'bemtevi.com.br', false],
    ['Bemtevi.com.br', ' bemtevi.com.br , x.com', true],
  ])('%s in [%s] -> %s', (host, list, main) => expect(hostIsMain(host, parseDomainList(list))).toBe(main))
})
