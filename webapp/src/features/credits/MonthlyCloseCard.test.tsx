import { fireEvent, render, screen, within } from '@testing-library/react'
import { afterEach, describe, expect, it } from 'vitest'
import i18n from '../../i18n'
import type { MonthlyCloseData, StatementCategory } from '../../store/generated/bemteviApi'
import { MonthlyCloseView } from './MonthlyCloseCard'

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
})
