import { render, screen, waitFor, within } from '@testing-library/react'
import { Provider } from 'react-redux'
import { MemoryRouter } from 'react-router'
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import i18n from '../../i18n'
import { makeStore } from '../../store'
import type { UsageResponse } from '../../store/generated/bemteviApi'
import { json } from '../../test/fakeApi'
import { user } from '../../test/fixtures'
import DashboardCharts from './DashboardCharts'
import type { Period } from './chartData'

const WEEK: Period = { from: '2026-11-22', to: '2026-11-28' }
const MONTH: Period = { from: '2026-10-30', to: '2026-11-28' }

function usage(period: Period, consultations: number): UsageResponse {
  return {
    data: {
      balances: [],
      byChannel: [{ key: 'panel', consultations, credits: consultations }],
      byDay: [{ day: period.to, consultations, credits: consultations }],
      byQueryType: [{ key: 'cpf-complete', consultations, credits: consultations }],
      consultations,
      credits: consultations,
      firstDay: period.from,
      lastDay: period.to,
      scope: 'group',
      upToDate: true,
    },
  }
}

// The month's answer waits until the test lets it go: what shows meanwhile is what a user sees on a slow network.
let releaseMonth: () => void = () => {}

beforeEach(async () => {
  await i18n.changeLanguage('pt-BR')
  localStorage.setItem('authToken', 'tok-1')
  localStorage.setItem('authUser', JSON.stringify(user))
  vi.stubGlobal('ResizeObserver', class { observe() {} unobserve() {} disconnect() {} })
  vi.stubGlobal(
    'fetch',
    vi.fn(async (input: Request) => {
      const url = new URL(input.url)
      if (url.pathname !== '/api/dashboard/usage') return json({ statusCode: 404, message: 'Not found', code: 'not_found' }, 404)
      if (url.searchParams.get('from') === WEEK.from) return json(usage(WEEK, 3))
      await new Promise<void>((go) => (releaseMonth = go))
      return json(usage(MONTH, 40))
    }),
  )
})

afterEach(() => {
  vi.unstubAllGlobals()
  localStorage.clear()
})

const charts = (period: Period) => (
  <DashboardCharts period={period} problem={null} subtree={false} seesBelow={false} offersQuery={false} />
)

describe("the dashboard's charts", () => {
  it('keep the previous period on screen while another one loads, then show it', async () => {
    const store = makeStore()
    const page = (period: Period) => (
      <Provider store={store}>
        <MemoryRouter>{charts(period)}</MemoryRouter>
      </Provider>
    )
    const { rerender } = render(page(WEEK))
    const byDay = await screen.findByTestId('chart-by-day')
    await waitFor(() => expect(byDay).toHaveAttribute('data-state', 'ready'))
    expect(byDay).toHaveTextContent('22/11/2026 a 28/11/2026 · 3 consultas')

    rerender(page(MONTH))
    // No placeholder: the week's charts stay, their own period and counts beside them, a bar says more is coming.
    await screen.findByTestId('chart-by-day-refreshing')
    for (const card of ['chart-by-day', 'chart-by-type', 'chart-by-channel']) {
      expect(screen.getByTestId(card)).toHaveAttribute('data-state', 'ready')
    }
    expect(byDay).toHaveTextContent('22/11/2026 a 28/11/2026 · 3 consultas')
    expect(within(byDay).queryByLabelText('Carregando…')).not.toBeNull()

    releaseMonth()
    await waitFor(() => expect(byDay).toHaveTextContent('30/10/2026 a 28/11/2026 · 40 consultas'))
    expect(screen.queryByTestId('chart-by-day-refreshing')).toBeNull()
    expect(byDay).toHaveAttribute('data-state', 'ready')
  })
})
