import { render, screen, within } from '@testing-library/react'
import { Provider } from 'react-redux'
import { MemoryRouter } from 'react-router'
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import i18n from '../../i18n'
import { makeStore } from '../../store'
import type { DashboardResponse } from '../../store/generated/bemteviApi'
import { group, roles, user } from '../../test/fixtures'
import DashboardPage from './DashboardPage'

const NONE = { batches: 0, records: 0, done: 0, credits: 0 }

function dashboard(batch = NONE, manual = NONE, consultationsTotal = 0): DashboardResponse {
  return {
    data: {
      consultationsTotal,
      consultationsToday: 0,
      byDay: [],
      credits: { unit: { used: 0, limit: 10 } },
      recent: [],
      batches: [
        { kind: 'batch', ...batch },
        { kind: 'manual', ...manual },
      ],
      position: 1,
      upToDate: true,
    },
  }
}

let answer: DashboardResponse

beforeEach(async () => {
  await i18n.changeLanguage('pt-BR')
  localStorage.setItem('authToken', 'tok-1')
  localStorage.setItem('authUser', JSON.stringify(user))
  vi.stubGlobal(
    'fetch',
    vi.fn(async (input: Request | string) => {
      const url = new URL(typeof input === 'string' ? input : input.url, 'http://localhost')
      const json = (body: unknown) => new Response(JSON.stringify(body), { headers: { 'Content-Type': 'application/json' } })
      if (url.pathname === '/api/dashboard') return json(answer)
      if (url.pathname === '/api/user-roles/get-user-roles-by-id') return json({ data: { group, roles } })
      return new Response(JSON.stringify({ statusCode: 404, message: 'Not found', code: 'not_found' }), { status: 404 })
    }),
  )
})

afterEach(() => {
  vi.unstubAllGlobals()
  localStorage.clear()
})

function renderPage() {
  render(
    <Provider store={makeStore()}>
      <MemoryRouter>
        <DashboardPage />
      </MemoryRouter>
    </Provider>,
  )
}

describe('the dashboard', () => {
  it('with nothing done yet says what to do next, with the screens this user may open', async () => {
    answer = dashboard()
    renderPage()
    const empty = await screen.findByTestId('dashboard-empty')
    expect(within(empty).getByTestId('dashboard-empty-text')).toHaveTextContent(/Faça a primeira consulta/)
    // The fixture's menu has the unit query and no batch screen: only the button that leads somewhere.
    const query = await within(empty).findByTestId('dashboard-first-query')
    expect(query).toHaveTextContent('Fazer uma consulta')
    expect(query).toHaveAttribute('href', '/normal-query')
    expect(within(empty).queryByTestId('dashboard-first-batch')).toBeNull()
    expect(screen.getByTestId('dashboard-batches')).toHaveTextContent('0 arquivos')
  })

  it('counts the batches and the manual enrichments sent, their records and credits', async () => {
    answer = dashboard({ batches: 2, records: 1200, done: 1100, credits: 1050 }, { batches: 1, records: 3, done: 0, credits: 0 })
    renderPage()
    expect(await screen.findByTestId('dashboard-batches')).toHaveTextContent('2 arquivos')
    expect(screen.getByTestId('dashboard-batches-detail')).toHaveTextContent('1.100 de 1.200 registros enriquecidos · 1.050 créditos')
    expect(screen.getByTestId('dashboard-enrichments')).toHaveTextContent('1 arquivo')
    expect(screen.getByTestId('dashboard-enrichments-detail')).toHaveTextContent('Nenhum registro enriquecido')
    // Something was done: no empty state, even without a single consultation.
    expect(screen.queryByTestId('dashboard-empty')).toBeNull()
  })

  it.each([
    ['pt-BR', { used: 3, limit: 10 }, '3 de 10', null],
    ['pt-BR', { used: 1, limit: null }, 'Ilimitado', '1 utilizado'],
    ['en-US', { used: 1200, limit: null }, 'Unlimited', '1,200 used'],
  ])('shows the unit credits in %s as used of the limit, or unlimited with what was used', async (lang, unit, value, detail) => {
    await i18n.changeLanguage(lang)
    answer = dashboard()
    answer.data.credits = { unit }
    renderPage()
    const card = await screen.findByTestId('dashboard-unit-credits')
    expect(card).toHaveTextContent(value)
    if (detail) expect(screen.getByTestId('dashboard-unit-credits-detail')).toHaveTextContent(detail)
    else expect(screen.queryByTestId('dashboard-unit-credits-detail')).toBeNull()
    expect(card).not.toHaveTextContent(/de Ilimitado|of Unlimited/)
  })
})
