import { describe, expect, it } from 'vitest'
import { consumptionPeriod, consumptionSeries } from './consumption'

describe('consumption chart data', () => {
  it('draws every day from the first to the last use, stacked by category in the screens’ order', () => {
    const data = consumptionSeries([
      { day: '2026-11-20', category: 'api', credits: 2 },
      { day: '2026-11-20', category: 'unit', credits: 3 },
      { day: '2026-11-22', category: 'unit', credits: 10 },
    ])
    expect(data.days).toEqual(['2026-11-20', '2026-11-21', '2026-11-22'])
    expect(data.series).toEqual([
      { category: 'unit', data: [3, 0, 10] },
      { category: 'api', data: [2, 0, 0] },
    ])
    expect(data.total).toBe(15)
  })

  it('crosses month ends and leaves out categories with no use', () => {
    const data = consumptionSeries([
      { day: '2026-02-27', category: 'batch', credits: 1 },
      { day: '2026-03-01', category: 'batch', credits: 4 },
      { day: '2026-03-01', category: 'advanced', credits: 0 },
    ])
    expect(data.days).toEqual(['2026-02-27', '2026-02-28', '2026-03-01'])
    expect(data.series.map((s) => s.category)).toEqual(['batch'])
  })

  it('spreads the bars over the whole period asked for', () => {
    const period = consumptionPeriod({}, '2026-11-24')
    expect(period).toEqual({ from: '2026-10-26', to: '2026-11-24' })
    const data = consumptionSeries([{ day: '2026-11-24', category: 'unit', credits: 9 }], period)
    expect(data.days).toHaveLength(30)
    expect(data.series).toEqual([{ category: 'unit', data: [...Array(29).fill(0), 9] }])
    expect(consumptionPeriod({ from: '2026-01-01', to: '2026-01-10' }, '2026-11-24')).toEqual({ from: '2026-01-01', to: '2026-01-10' })
    expect(consumptionPeriod({ to: '2026-11-20' }, '2026-11-24')).toEqual({ from: '2026-10-26', to: '2026-11-20' })
  })

  it('has nothing to draw when nothing was consumed', () => {
    expect(consumptionSeries([])).toEqual({ days: [], series: [], total: 0 })
  })
})
