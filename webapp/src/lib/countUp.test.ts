import { describe, expect, it } from 'vitest'
import { COUNT_UP_MS, countUpValue } from './countUp'

describe('count-up', () => {
  it('lasts 1000 ms, rises monotonically and ends exactly on the target', () => {
    expect(COUNT_UP_MS).toBe(1000)
    expect(countUpValue(360, 0)).toBe(0)
    let last = 0
    for (let ms = 0; ms <= 1000; ms += 50) {
      const v = countUpValue(360, ms)
      expect(v).toBeGreaterThanOrEqual(last)
      last = v
    }
    expect(countUpValue(360, 999)).toBeLessThanOrEqual(360)
    expect(countUpValue(360, 1000)).toBe(360)
    expect(countUpValue(360, 5000)).toBe(360)
  })
})
