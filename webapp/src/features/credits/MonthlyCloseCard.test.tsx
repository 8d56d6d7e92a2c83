import { fireEvent, render, screen, waitFor, within } from '@testing-library/react'
import { Provider } from 'react-redux'
import { afterEach, describe, expect, it, vi } from 'vitest'
import i18n from '../../i18n'
import { makeStore } from '../../store'
import type { MonthlyCloseData, StatementCategory } from '../../store/generated/bemteviApi'
import { user } from '../../test/fixtures'
import MonthlyCloseCard, { MonthlyCloseView } from './MonthlyCloseCard'

const unit = (received: number, charged: number): StatementCategory => ({
  category: 'unit',
  openingBalance: 0,
  received,
  returned: 0,
  granted: 0,
  takenBack: 0,
  charged,
  released: 0,
  limitChanges: 0,
  closingBalance: received - charged,
  consumed: charged,
  lines: 2,
})

const close: MonthlyCloseData = {
  groupId: 'r-1',
  groupName: 'Revenda Norte',
  month: '2026-11',
  periodStart: '2026-11-01',
  periodEnd: '2026-11-30',
  children: [
    { groupId: 'c-1', groupName: 'Escritório Alfa', categories: [unit(3, 0)] },
    { groupId: 'c-2', groupName: 'Loja Zeta', categories: [unit(1200, 1)] },
  ],
  totals: [unit(1203, 1)],
}

describe("a reseller's monthly close", () => {
  afterEach(async () => {
    await i18n.changeLanguage('pt-BR')
  })

  it('shows the totals over the customers, then each customer, whose statement unfolds', async () => {
    await i18n.changeLanguage('pt-BR')
    render(<MonthlyCloseView data={close} />)
    const totals = screen.getByTestId('monthly-close-totals')
    expect(totals).toHaveTextContent('Totais de 2 clientes')
    expect(within(totals).getByTestId('statement-received')).toHaveTextContent('Recebidos do grupo superior1.203')
    expect(within(totals).getByTestId('statement-closingBalance')).toHaveTextContent('Saldo final1.202')
    const children = screen.getAllByTestId('monthly-close-child')
    expect(children.map((c) => c.querySelector('.MuiAccordionSummary-content')?.textContent)).toEqual([
      'Escritório Alfa0 consultas unitárias consumidas',
      'Loja Zeta1 consultas unitárias consumidas',
    ])
    fireEvent.click(within(children[1]).getByRole('button'))
    expect(within(children[1]).getByTestId('statement-received')).toHaveTextContent('1.200')
  })

  it('speaks English in en-US, one customer as one', async () => {
    await i18n.changeLanguage('en-US')
    render(<MonthlyCloseView data={{ ...close, children: close.children.slice(0, 1), totals: [unit(3, 0)] }} />)
    expect(screen.getByTestId('monthly-close-totals')).toHaveTextContent('Totals of 1 customer')
    expect(screen.getByTestId('monthly-close-child')).toHaveTextContent('Escritório Alfa0 unit queries consumed')
  })

  it('exports the close it shows as CSV and XLSX, for its month and group, in the screen language', async () => {
    await i18n.changeLanguage('en-US')
    localStorage.setItem('authToken', 'tok-1')
    localStorage.setItem('authUser', JSON.stringify(user))
    const requests: URL[] = []
    vi.stubGlobal(
      'fetch',
      vi.fn(async (input: Request | string) => {
        const url = new URL(typeof input === 'string' ? input : input.url, 'http://localhost')
        requests.push(url)
        if (url.pathname === '/api/credits/monthly-close/export') {
          return new Response('a;b', { headers: { 'Content-Disposition': 'attachment; filename="monthly_close_2026-11.csv"' } })
        }
        return new Response(JSON.stringify({ data: close }), { headers: { 'Content-Type': 'application/json' } })
      }),
    )
    const created = vi.fn(() => 'blob:close')
    vi.stubGlobal('URL', Object.assign(URL, { createObjectURL: created, revokeObjectURL: vi.fn() }))
    try {
      render(
        <Provider store={makeStore()}>
          <MonthlyCloseCard groupId="r-1" />
        </Provider>,
      )
      await waitFor(() => expect(screen.getByTestId('monthly-close-csv')).toBeEnabled(), { timeout: 20_000 })
      fireEvent.click(screen.getByTestId('monthly-close-csv'))
      await waitFor(() => expect(created).toHaveBeenCalledTimes(1))
      await waitFor(() => expect(screen.getByTestId('monthly-close-xlsx')).toBeEnabled())
      fireEvent.click(screen.getByTestId('monthly-close-xlsx'))
      await waitFor(() => expect(created).toHaveBeenCalledTimes(2))
      const exports = requests.filter((u) => u.pathname === '/api/credits/monthly-close/export')
      expect(exports.map((u) => Object.fromEntries(u.searchParams))).toEqual([
        { month: '2026-11', groupId: 'r-1', format: 'csv', lang: 'en-US' },
        { month: '2026-11', groupId: 'r-1', format: 'xlsx', lang: 'en-US' },
      ])
      expect(screen.getByTestId('monthly-close-csv')).toHaveTextContent('Export CSV')
    } finally {
      vi.unstubAllGlobals()
      localStorage.clear()
    }
  })
})
