import { act, fireEvent, render, screen, waitFor } from '@testing-library/react'
import { Provider } from 'react-redux'
import { MemoryRouter, useLocation } from 'react-router'
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import App from './App'
import i18n from './i18n'
import { makeStore } from './store'
import { consultationOf, group, person, roles, user } from './test/fixtures'

type Handler = (body: unknown, url: URL) => { status?: number; body: unknown }

function mockApi(handlers: Record<string, Handler>) {
  const calls: { path: string; body: unknown; auth: string | null }[] = []
  const fetchMock = vi.fn(async (input: Request) => {
    const url = new URL(input.url)
    const text = input.method === 'GET' ? '' : await input.text()
    const body = text ? JSON.parse(text) : undefined
    const key = `${input.method} ${url.pathname}`
    calls.push({ path: `${key}${url.search}`, body, auth: input.headers.get('Authorization') })
    const handler = handlers[key]
    const answer = handler ? handler(body, url) : { status: 404, body: { statusCode: 404, message: 'Not found' } }
    return new Response(JSON.stringify(answer.body), {
      status: answer.status ?? 200,
      headers: { 'Content-Type': 'application/json' },
    })
  })
  vi.stubGlobal('fetch', fetchMock)
  return calls
}

const baseHandlers: Record<string, Handler> = {
  'POST /api/group/groups-get-public-data': () => ({ body: { data: group } }),
  'POST /api/user-roles/get-user-roles-by-id': () => ({ body: { data: { group, roles } } }),
  'GET /api/dashboard': () => ({
    body: {
      data: {
        consultationsTotal: 1234,
        consultationsToday: 5,
        byDay: [{ day: '2024-06-01', count: 5 }],
        credits: { unit: { used: 10, limit: null } },
        batches: [],
      },
    },
  }),
}

function Location() {
  const location = useLocation()
  return <output data-testid="location">{`${location.pathname}${location.search}`}</output>
}

function renderApp(path: string, signedIn = false) {
  if (signedIn) {
    localStorage.setItem('authToken', 'tok-1')
    localStorage.setItem('authUser', JSON.stringify(user))
  }
  const store = makeStore()
  render(
    <Provider store={store}>
      <MemoryRouter initialEntries={[path]}>
        <App />
        <Location />
      </MemoryRouter>
    </Provider>,
  )
  return store
}

const location = () => screen.getByTestId('location').textContent

beforeEach(async () => {
  await i18n.changeLanguage('pt-BR')
})
afterEach(() => {
  vi.unstubAllGlobals()
})

describe('routing and session', () => {
  it('sends a visitor to /login, signs in and returns to the remembered path', async () => {
    const calls = mockApi({
      ...baseHandlers,
      'POST /api/auth/auth': () => ({ body: { data: user, token: 'tok-1' } }),
    })
    const store = renderApp('/normal-query?x=1')
    await waitFor(() => expect(location()).toBe('/login?redirect=%2Fnormal-query%3Fx%3D1'))

    fireEvent.click(await screen.findByTestId('login-submit'))
    expect(await screen.findByText('Informe o e-mail')).toBeInTheDocument()
    expect(screen.getByText('Informe a senha')).toBeInTheDocument()

    fireEvent.change(screen.getByTestId('login-email'), { target: { value: 'ana@acme' } })
    fireEvent.click(screen.getByTestId('login-submit'))
    expect(await screen.findByText('Informe um e-mail válido')).toBeInTheDocument()

    fireEvent.change(screen.getByTestId('login-email'), { target: { value: 'ana@acme.com.br' } })
    fireEvent.change(screen.getByTestId('login-password'), { target: { value: 'secret' } })
    fireEvent.click(screen.getByTestId('login-submit'))

    await waitFor(() => expect(location()).toBe('/normal-query?x=1'))
    expect(await screen.findByTestId('query-document')).toBeInTheDocument()
    expect(calls.find((c) => c.path === 'POST /api/auth/auth')?.body).toEqual({
      email: 'ana@acme.com.br',
      password: 'secret',
      domain_url: window.location.host,
      locale: 'pt-BR',
    })
    expect(localStorage.getItem('authToken')).toBe('tok-1')
    expect(JSON.parse(localStorage.getItem('authUser') ?? '{}').uniqueKey).toBe('u-7')
    expect(store.getState().auth.authToken).toBe('tok-1')
    // the tenant brand by group id after login, bearer token on signed-in calls
    await waitFor(() =>
      expect(calls.some((c) => JSON.stringify(c.body) === JSON.stringify({ group_id: '3', group_unique_key: 'g-3' }))).toBe(true),
    )
    expect(calls.find((c) => c.path === 'POST /api/user-roles/get-user-roles-by-id')?.auth).toBe('Bearer tok-1')
    await waitFor(() => expect(document.title).toBe('Acme Consultas'))
    expect(document.documentElement.style.getPropertyValue('--primary')).toBe('#123456')
    expect(screen.getByTestId('user-first-name')).toHaveTextContent('Ana')
  })

  it('shows the translated server error on a failed login', async () => {
    mockApi({
      ...baseHandlers,
      'POST /api/auth/auth': () => ({
        status: 401,
        body: { statusCode: 401, message: 'Invalid email or password', code: 'invalid_credentials' },
      }),
    })
    renderApp('/login')
    fireEvent.change(await screen.findByTestId('login-email'), { target: { value: 'ana@acme.com.br' } })
    fireEvent.change(screen.getByTestId('login-password'), { target: { value: 'wrong' } })
    fireEvent.click(screen.getByTestId('login-submit'))
    expect(await screen.findByTestId('login-error')).toHaveTextContent('E-mail ou senha inválidos')
    expect(screen.queryByTestId('warning-dialog')).toBeNull()
  })

  it('sends a signed-in user from /login and / to the dashboard, with the nav from the roles', async () => {
    mockApi(baseHandlers)
    renderApp('/login', true)
    await waitFor(() => expect(location()).toBe('/dashboard'))
    // The figure counts up to its value (specification: 1000 ms), frame by frame: on a busy machine the frames come
    // late, so the wait is the suite's own (setupDom.ts), not the animation's length.
    await waitFor(() => expect(screen.getByTestId('dashboard-total')).toHaveTextContent('1.234'))
    expect(screen.getByText('Ilimitado', { exact: false })).toBeInTheDocument()
    expect(screen.getByTestId('nav-dashboard')).toHaveTextContent('Dashboard')
    expect(screen.getByTestId('nav-normal-query')).toHaveTextContent('Unitária')
  })

  it('shows the not-found page for an unknown path', async () => {
    mockApi(baseHandlers)
    renderApp('/no-such-screen', true)
    // unknown to the router: not found, not forbidden
    expect(await screen.findByTestId('not-found')).toBeInTheDocument()
    expect(screen.getByText('Voltar ao início')).toBeInTheDocument()
  })

  it('forbids a known route the roles do not list', async () => {
    mockApi({
      ...baseHandlers,
      'POST /api/user-roles/get-user-roles-by-id': () => ({ body: { data: { group, roles: [roles[0]] } } }),
    })
    renderApp('/normal-query', true)
    await waitFor(() => expect(location()).toBe('/error-forbidden'))
    expect(await screen.findByText('Acesso não permitido')).toBeInTheDocument()
  })

  it('on 401 shows the Warning dialog, then clears the session and goes to /login', async () => {
    mockApi({
      ...baseHandlers,
      'GET /api/dashboard': () => ({ status: 401, body: { statusCode: 401, message: 'Expired token', code: 'expired_token' } }),
    })
    const store = renderApp('/dashboard', true)
    const dialog = await screen.findByTestId('warning-dialog')
    expect(dialog).toHaveTextContent('Aviso')
    // The server's error by its code, in the reader's language.
    expect(dialog).toHaveTextContent('Token expirado')
    expect(dialog).not.toHaveTextContent('Expired token')
    fireEvent.click(screen.getByTestId('warning-ok'))
    await waitFor(() => expect(location()?.startsWith('/login')).toBe(true))
    expect(store.getState().auth.authToken).toBeNull()
    expect(localStorage.getItem('authToken')).toBeNull()
    expect(localStorage.getItem('authUser')).toBeNull()
  })

  it('logout calls the server, clears the session and goes to /login', async () => {
    const calls = mockApi({ ...baseHandlers, 'POST /api/auth/auth/logout': () => ({ body: { message: 'ok' } }) })
    localStorage.setItem('locale', 'pt-BR')
    renderApp('/dashboard', true)
    fireEvent.click(await screen.findByTestId('logout'))
    await waitFor(() => expect(location()).toBe('/login'))
    expect(calls.find((c) => c.path === 'POST /api/auth/auth/logout')?.body).toEqual({ token: 'tok-1' })
    expect(localStorage.getItem('authToken')).toBeNull()
    expect(localStorage.getItem('locale')).toBe('pt-BR')
  })
})

describe('unit query', () => {
  it('checks the document, shows the result and sends the position to the dashboard', async () => {
    const calls = mockApi({
      ...baseHandlers,
      'POST /api/consultations': () => ({ body: { data: consultationOf(person), position: 42 } }),
    })
    renderApp('/normal-query', true)
    const input = await screen.findByTestId('query-document')
    expect(screen.getByText('Unitária', { selector: 'nav.breadcrumbs span' })).toBeInTheDocument()

    fireEvent.change(input, { target: { value: '123.456' } })
    fireEvent.click(screen.getByTestId('query-submit'))
    expect(await screen.findByText('Tipo de documento inválido')).toBeInTheDocument()

    fireEvent.change(input, { target: { value: '529.982.247-24' } })
    fireEvent.click(screen.getByTestId('query-submit'))
    expect(await screen.findByText('O documento informado é inválido')).toBeInTheDocument()

    fireEvent.change(input, { target: { value: '529.982.247-25' } })
    fireEvent.click(screen.getByTestId('query-submit'))
    expect(await screen.findByTestId('result-name')).toHaveTextContent('Maria Aparecida da Silva')
    expect(calls.find((c) => c.path === 'POST /api/consultations')?.body).toEqual({ document: '52998224725' })

    fireEvent.click(screen.getByTestId('nav-dashboard'))
    expect(await screen.findByTestId('dashboard-total')).toBeInTheDocument()
    expect(calls.some((c) => c.path === 'GET /api/dashboard?position=42')).toBe(true)
  })

  it('says 402 not enough credits in the reader’s language', async () => {
    mockApi({
      ...baseHandlers,
      'POST /api/consultations': () => ({
        status: 402,
        body: { statusCode: 402, message: 'Not enough manual query credits', code: 'not_enough_credits' },
      }),
    })
    renderApp('/normal-query', true)
    fireEvent.change(await screen.findByTestId('query-document'), { target: { value: '11.222.333/0001-81' } })
    fireEvent.click(screen.getByTestId('query-submit'))
    const error = await screen.findByTestId('query-error')
    expect(error).toHaveTextContent('Créditos insuficientes')
    expect(error).toHaveTextContent('Créditos de consulta unitária insuficientes')
    expect(error).not.toHaveTextContent('Not enough manual query credits')
  })

  it('switches the language and keeps it', async () => {
    mockApi(baseHandlers)
    renderApp('/login')
    const select = await screen.findByTestId('language-switch')
    await act(async () => {
      fireEvent.change(select, { target: { value: 'en-US' } })
    })
    expect(await screen.findByTestId('login-submit')).toHaveTextContent('Sign in')
    expect(localStorage.getItem('locale')).toBe('en-US')
  })
})
