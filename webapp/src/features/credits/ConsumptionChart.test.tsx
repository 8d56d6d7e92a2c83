import { render, screen } from '@testing-library/react'
import { describe, expect, it } from 'vitest'
import '../../i18n'
import ConsumptionChart from './ConsumptionChart'

describe('ConsumptionChart', () => {
  it('draws one bar per day, stacked by category, with the day total as its text', () => {
    render(
      <ConsumptionChart
        days={[
          { day: '2026-11-20', category: 'unit', credits: 3 },
          { day: '2026-11-20', category: 'api', credits: 2 },
          { day: '2026-11-21', category: 'unit', credits: 10 },
        ]}
      />,
    )
    const bars = screen.getAllByTestId('consumption-bar')
    expect(bars).toHaveLength(2)
    expect(bars[0].querySelectorAll('rect')).toHaveLength(2)
    expect(bars[0].querySelector('title')?.textContent).toBe('20/11/2026: 5 créditos')
    // The busiest day is drawn full height; the other in proportion.
    const heights = [...document.querySelectorAll('rect')].map((r) => Number(r.getAttribute('height')))
    expect(heights[2]).toBeGreaterThan(heights[0] + heights[1])
    expect(screen.getByText('Consulta manual')).toBeTruthy()
    expect(screen.getByText('API')).toBeTruthy()
  })

  it('says so when nothing was consumed', () => {
    render(<ConsumptionChart days={[]} />)
    expect(screen.getByText('Nenhum consumo no período.')).toBeTruthy()
  })
})
