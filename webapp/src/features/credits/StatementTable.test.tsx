import { render, screen } from '@testing-library/react'
import { afterEach, describe, expect, it } from 'vitest'
import i18n from '../../i18n'
import type { StatementCategory } from '../../store/generated/bemteviApi'
import { StatementTable } from './StatementCard'

const batch: StatementCategory = {
  category: 'batch',
  openingBalance: 0,
  received: 500,
  returned: 0,
  granted: 0,
  takenBack: 0,
  charged: 49,
  released: 1,
  limitChanges: 0,
  closingBalance: 452,
  consumed: 48,
  lines: 3,
}

describe('the finance statement', () => {
  afterEach(async () => {
    await i18n.changeLanguage('pt-BR')
  })

  it('reads from the opening balance to the closing one, per category', async () => {
    await i18n.changeLanguage('pt-BR')
    render(<StatementTable categories={[batch, { ...batch, category: 'unit', openingBalance: null, closingBalance: null }]} />)
    expect(screen.getByTestId('statement-openingBalance')).toHaveTextContent('Saldo inicial0Ilimitado')
    expect(screen.getByTestId('statement-received')).toHaveTextContent('Recebidos do grupo superior500')
    expect(screen.getByTestId('statement-closingBalance')).toHaveTextContent('Saldo final452Ilimitado')
  })

  it('speaks English in en-US', async () => {
    await i18n.changeLanguage('en-US')
    render(<StatementTable categories={[batch]} />)
    expect(screen.getByTestId('statement-charged')).toHaveTextContent('Charged49')
    expect(screen.getByText('Enrichment')).toBeInTheDocument()
  })
})
