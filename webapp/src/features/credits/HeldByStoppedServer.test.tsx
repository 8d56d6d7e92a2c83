import { render, screen } from '@testing-library/react'
import { afterEach, describe, expect, it } from 'vitest'
import i18n from '../../i18n'
import type { CategoryFigures } from '../../store/generated/bemteviApi'
import { HeldByStoppedServer } from './BalancesPage'

const figures: CategoryFigures = {
  category: 'unit',
  unlimited: false,
  limit: 100,
  used: 10,
  reserved: 20,
  granted: 0,
  available: 70,
}

describe('units held by a stopped server', () => {
  afterEach(async () => {
    await i18n.changeLanguage('pt-BR')
  })

  it('says how many and by when they are back, in São Paulo time', async () => {
    await i18n.changeLanguage('pt-BR')
    render(<HeldByStoppedServer figures={{ ...figures, heldByStoppedServer: 1500, heldUntil: '2026-11-27T22:15:31Z' }} />)
    expect(screen.getByTestId('held-unit')).toHaveTextContent('1.500 retidos por um servidor parado, de volta até 19:15:31')
  })

  it('speaks English in en-US, one unit as one', async () => {
    await i18n.changeLanguage('en-US')
    render(<HeldByStoppedServer figures={{ ...figures, heldByStoppedServer: 1, heldUntil: '2026-11-27T22:15:31Z' }} />)
    expect(screen.getByTestId('held-unit')).toHaveTextContent('1 held by a stopped server, back by 19:15:31')
  })

  it('says nothing when no stopped server holds any', () => {
    const { container } = render(<HeldByStoppedServer figures={{ ...figures, heldByStoppedServer: 0, heldUntil: null }} />)
    expect(container).toBeEmptyDOMElement()
    render(<HeldByStoppedServer figures={figures} />)
    expect(screen.queryByTestId('held-unit')).toBeNull()
  })
})
