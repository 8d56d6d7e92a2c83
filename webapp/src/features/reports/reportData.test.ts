import { describe, expect, it } from 'vitest'
import { chartSeries } from './reportData'

const row = (period: string, key: string, consultations: number) => ({
  period,
  key,
  label: key,
  consultations,
  found: 0,
  credits: 0,
})

describe('chartSeries', () => {
  it('puts every period in order and fills a key without a row with zero', () => {
    const data = chartSeries([row('2026-11-02', 'api', 2), row('2026-11-01', 'unit', 3), row('2026-11-02', 'unit', 1)], ['unit', 'api'])
    expect(data.periods).toEqual(['2026-11-01', '2026-11-02'])
    expect(data.series).toEqual([
      { key: 'unit', data: [3, 1] },
      { key: 'api', data: [0, 2] },
    ])
  })

  it('keeps the sums of the rows', () => {
    const rows = [row('2026-10-01', 'a', 5), row('2026-11-01', 'b', 7), row('2026-11-01', 'a', 1)]
    const data = chartSeries(rows, ['a', 'b'])
    const total = data.series.flatMap((s) => s.data).reduce((a, b) => a + b, 0)
    expect(total).toBe(13)
  })
})
