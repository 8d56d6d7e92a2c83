import { fireEvent, render, screen, waitFor } from '@testing-library/react'
import { Provider } from 'react-redux'
import { MemoryRouter, useLocation, type InitialEntry } from 'react-router'
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import App from '../../App'
import i18n from '../../i18n'
import { makeStore } from '../../store'
import { group, roles, user } from '../../test/fixtures'
import { codeDigits } from './validation'

type Answer = { status?: number; body: unknown }
type Handler = (body: unknown) => Answer

function mockApi(handlers: Record<string, Handler>) {
  const calls: { key: string; body: unknown }[] = []
  vi.stubGlobal(
    'fetch',
    vi.fn(async (input: Request) => {
      const url = new URL(input.url)
      const text = input.method === 'GET' ? '' : await input.text()
      const body = text ? JSON.parse(text) : undefined
      const key = `${input.method} ${url.pathname}`
      calls.push({ key, body })
      const answer = handlers[key]?.(body) ?? { status: 404, body: { statusCode: 404, message: 'Not found', code: 'http_404' } }
      return new Response(JSON.stringify(answer.body), { status: answer.status ?? 200, headers: { 'Content-Type': 'application/json' } })
    }),
  )
  return calls
}

const base: Record<string, Handler> = {
  'POST /api/group/groups-get-public-data': () => ({ body: { data: group } }),
  'POST /api/user-roles/get-user-roles-by-id': () => ({ body: { data: { group, roles } } }),
  'GET /api/dashboard': () => ({
    body: { data: { consultationsTotal: 1, consultationsToday: 1, byDay: [], credits: { unit: { used: 0, limit: null } } } },
  }),
}

const refusal = (status: number, code: string, extra: object = {}): Answer => ({
  status,
  body: { statusCode: status, message: code, code, ...extra },
})

function Location() {
  const location = useLocation()
  return <output data-testid="location">{`${location.pathname}${location.search}`}</output>
}

function renderAt(entry: InitialEntry) {
  const store = makeStore()
  render(
    <Provider store={store}>
      <MemoryRouter initialEntries={[entry]}>
        <App />
        <Location />
      </MemoryRouter>
    </Provider>,
  )
  return store
}

const location = () => screen.getByTestId('location').textContent
const codeField = () => screen.getByTestId('two-factor-code') as HTMLInputElement

beforeEach(async () => {
  localStorage.clear()
  await i18n.changeLanguage('pt-BR')
})
afterEach(() => {
  vi.unstubAllGlobals()
})

describe('codeDigits', () => {
  it('keeps the first six digits of whatever is typed or pasted', () => {
    expect(codeDigits('12 34-56')).toBe('123456')
    expect(codeDigits('a1b2c3')).toBe('123')
    expect(codeDigits('0012345678')).toBe('001234')
    expect(codeDigits('')).toBe('')
  })
})

describe('verify-code after a sign-in that needs a code', () => {
  it('goes from the login to verify-code, takes the mailed code and lands signed in where it was going', async () => {
    const calls = mockApi({
      ...base,
      'POST /api/auth/auth': () => refusal(401, 'two_factor_required', { challengeId: 'ch-1', resendAfter: 30 }),
      'POST /api/auth/two-factor': () => ({ body: { data: user, token: 'tok-2', position: 9 } }),
    })
    const store = renderAt('/login?redirect=%2Fdashboard')
    fireEvent.change(await screen.findByTestId('login-email'), { target: { value: 'ana@acme.com.br' } })
    fireEvent.change(screen.getByTestId('login-password'), { target: { value: 'S3nha!forte' } })
    fireEvent.click(screen.getByTestId('login-submit'))

    await waitFor(() => expect(location()).toBe('/verify-code?challenge=ch-1&redirect=%2Fdashboard'))
    expect(calls.find((c) => c.key === 'POST /api/auth/auth')?.body).toMatchObject({ locale: 'pt-BR' })
    expect(await screen.findByRole('heading', { name: 'Verificação em duas etapas' })).toBeInTheDocument()
    expect(store.getState().auth.authToken).toBeNull()
    // A new code only after the sign-in's wait.
    expect(screen.getByTestId('two-factor-resend')).toBeDisabled()
    expect(screen.getByTestId('two-factor-resend')).toHaveTextContent(/Enviar novo código em (30|29) s/)

    // Too short: said on the field, nothing sent.
    fireEvent.change(codeField(), { target: { value: '12' } })
    fireEvent.click(screen.getByTestId('two-factor-submit'))
    expect(await screen.findByText('Digite os 6 dígitos do código')).toBeInTheDocument()
    expect(calls.some((c) => c.key === 'POST /api/auth/two-factor')).toBe(false)

    // Only digits are kept.
    fireEvent.change(codeField(), { target: { value: '04 8a-15x7' } })
    expect(codeField().value).toBe('048157')
    fireEvent.click(screen.getByTestId('two-factor-submit'))

    await waitFor(() => expect(location()).toBe('/dashboard'))
    expect(calls.find((c) => c.key === 'POST /api/auth/two-factor')?.body).toEqual({ challengeId: 'ch-1', code: '048157' })
    expect(store.getState().auth.authToken).toBe('tok-2')
    expect(localStorage.getItem('authToken')).toBe('tok-2')
  })

  it('says a wrong code, then that the challenge is locked, and offers a new sign-in', async () => {
    let tries = 0
    mockApi({
      ...base,
      'POST /api/auth/two-factor': () => (++tries < 2 ? refusal(400, 'two_factor_code_invalid') : refusal(403, 'two_factor_locked')),
    })
    renderAt('/verify-code?challenge=ch-2')
    fireEvent.change(await screen.findByTestId('two-factor-code'), { target: { value: '111111' } })
    fireEvent.click(screen.getByTestId('two-factor-submit'))
    expect(await screen.findByTestId('two-factor-error')).toHaveTextContent('Código de verificação inválido')
    expect(codeField().value).toBe('')

    fireEvent.change(codeField(), { target: { value: '222222' } })
    fireEvent.click(screen.getByTestId('two-factor-submit'))
    await waitFor(() => expect(screen.getByTestId('two-factor-error')).toHaveTextContent('Muitas tentativas com este código: entre novamente'))
    expect(screen.getByTestId('two-factor-submit')).toBeDisabled()
    expect(screen.getByTestId('two-factor-resend')).toBeDisabled()
    expect(screen.getByTestId('two-factor-login')).toHaveTextContent('Entrar novamente')
    expect(location()).toBe('/verify-code?challenge=ch-2')
  })

  it('sends a new code once the wait is over, then waits again', async () => {
    const calls = mockApi({
      ...base,
      'POST /api/auth/two-factor/resend': () => ({
        body: { message: 'sent', challengeId: 'ch-3', resendAfter: 30, position: 4 },
      }),
    })
    await i18n.changeLanguage('en-US')
    renderAt({ pathname: '/verify-code', search: '?challenge=ch-3', state: { resendAfter: 0 } })
    const resend = await screen.findByTestId('two-factor-resend')
    expect(screen.getByRole('heading', { name: 'Two-step verification' })).toBeInTheDocument()
    expect(resend).toBeEnabled()
    expect(resend).toHaveTextContent('Send a new code')
    fireEvent.click(resend)
    await waitFor(() => expect(screen.getByTestId('two-factor-resend')).toBeDisabled())
    expect(screen.getByTestId('two-factor-resend')).toHaveTextContent(/Send a new code in (30|29) s/)
    expect(await screen.findByText('A new code was sent to your e-mail.')).toBeInTheDocument()
    expect(calls.find((c) => c.key === 'POST /api/auth/two-factor/resend')?.body).toEqual({ challengeId: 'ch-3', locale: 'en-US' })
  })

  it('shows the password recovery on verify-code without a challenge', async () => {
    mockApi(base)
    renderAt('/verify-code')
    expect(await screen.findByTestId('recovery')).toBeInTheDocument()
    expect(screen.queryByTestId('two-factor')).toBeNull()
  })
})
