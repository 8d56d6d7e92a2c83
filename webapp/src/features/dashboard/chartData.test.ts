import { describe, expect, it } from 'vitest'
import { balanceSeries, dayAxis, hasCredits, periodOf, ranked, shortDay, slices, todayInSaoPaulo } from './chartData'

describe('dashboard chart data', () => {
  it('takes the product day in São Paulo, not UTC', () => {
    // 02:30 UTC is still the previous evening in São Paulo (UTC-3).
    expect(todayInSaoPaulo(new Date('2026-11-24T02:30:00Z'))).toBe('2026-11-23')
    expect(todayInSaoPaulo(new Date('2026-11-24T03:30:00Z'))).toBe('2026-11-24')
  })

  it('turns a preset into the days ending today, both ends included', () => {
    expect(periodOf(7, '2026-03-02')).toEqual({ from: '2026-02-24', to: '2026-03-02' })
    expect(periodOf(30, '2026-11-24')).toEqual({ from: '2026-10-26', to: '2026-11-24' })
    expect(periodOf(90, '2026-01-15')).toEqual({ from: '2025-10-18', to: '2026-01-15' })
  })

  it('checks a custom range before asking for it', () => {
    expect(periodOf('custom', '2026-11-24', { from: '2026-11-01' })).toBe('incomplete')
    expect(periodOf('custom', '2026-11-24', { from: '2026-11-10', to: '2026-11-01' })).toBe('backwards')
    expect(periodOf('custom', '2026-11-24', { from: '2025-01-01', to: '2026-01-02' })).toBe('tooLong')
    expect(periodOf('custom', '2026-11-24', { from: '2025-01-01', to: '2025-12-31' })).toEqual({ from: '2025-01-01', to: '2025-12-31' })
  })

  it('writes axis days short, in the reader’s order', () => {
    expect(shortDay('2026-11-05', 'pt-BR')).toBe('05/11')
    expect(shortDay('2026-11-05', 'en-US')).toBe('11/05')
  })

  it('keeps every day of the period as one point of each series', () => {
    const axis = dayAxis([
      { day: '2026-11-01', consultations: 0, credits: 0 },
      { day: '2026-11-02', consultations: 3, credits: 4 },
    ])
    expect(axis).toEqual({ days: ['2026-11-01', '2026-11-02'], consultations: [0, 3], credits: [0, 4] })
  })

  it('names slices and leaves out the empty ones', () => {
    const names: Record<string, string> = { panel: 'Painel', api: 'API' }
    const rows = [
      { key: 'panel', consultations: 5, credits: 5 },
      { key: 'api', consultations: 2, credits: 2 },
      { key: 'batch', consultations: 0, credits: 0 },
    ]
    expect(slices(rows, (k, n) => `${names[k] ?? k} · ${n}`)).toEqual([
      { id: 'panel', value: 5, label: 'Painel · 5' },
      { id: 'api', value: 2, label: 'API · 2' },
    ])
  })

  it('stacks used, reserved, granted and available per category; an unlimited one has no available part', () => {
    const figures = [
      { category: 'unit' as const, unlimited: false, limit: 10, used: 4, reserved: 1, granted: 2, available: 3 },
      { category: 'api' as const, unlimited: true, limit: null, used: 7, reserved: 0, granted: 0, available: null },
    ]
    expect(balanceSeries(figures)).toEqual({
      categories: ['unit', 'api'],
      used: [4, 7],
      reserved: [1, 0],
      granted: [2, 0],
      available: [3, null],
      unlimited: ['api'],
    })
    expect(hasCredits(figures)).toBe(true)
    const none = { category: 'batch' as const, unlimited: false, limit: 0, used: 0, reserved: 0, granted: 0, available: 0 }
    expect(hasCredits([none])).toBe(false)
  })

  it('ranks consumers with their share of the busiest', () => {
    const rows = ranked([
      { groupId: 'a', name: 'Loja', type: 'company', parentName: 'Revenda', consultations: 8, credits: 8 },
      { groupId: 'b', name: 'Quiosque', type: 'company', parentName: 'Loja', consultations: 2, credits: 3 },
    ])
    expect(rows.map((r) => [r.rank, r.share])).toEqual([
      [1, 100],
      [2, 25],
    ])
  })
})
