import { act, renderHook } from '@testing-library/react'
import { afterEach, describe, expect, it, vi } from 'vitest'
import { useCountUp } from './useCountUp'

describe('useCountUp', () => {
  afterEach(() => vi.unstubAllGlobals())

  function frames() {
    // Frames drawn by hand: each call to `draw(ms)` runs the pending frame at that time.
    let pending: FrameRequestCallback | null = null
    vi.stubGlobal('requestAnimationFrame', (callback: FrameRequestCallback) => {
      pending = callback
      return 1
    })
    vi.stubGlobal('cancelAnimationFrame', () => {
      pending = null
    })
    return (ms: number) =>
      act(() => {
        const callback = pending
        pending = null
        callback?.(ms)
      })
  }

  it('counts from zero up to the figure in 1000 ms, then from there to a new figure', () => {
    const draw = frames()
    const { result, rerender } = renderHook(({ target }) => useCountUp(target), { initialProps: { target: 1234 } })
    expect(result.current).toBe(0)
    draw(1)
    draw(500)
    expect(result.current).toBeGreaterThan(0)
    expect(result.current).toBeLessThan(1234)
    draw(1001)
    expect(result.current).toBe(1234)
    rerender({ target: 1240 })
    draw(2000)
    expect(result.current).toBe(1234) // the new count starts where the figure stood
    draw(2500)
    expect(result.current).toBeGreaterThan(1234)
    draw(3000)
    expect(result.current).toBe(1240)
  })

  it('shows the figure at once for a reader who asked for reduced motion', () => {
    frames()
    vi.stubGlobal('matchMedia', (query: string) => ({ matches: query.includes('reduce') }))
    const { result } = renderHook(() => useCountUp(1234))
    expect(result.current).toBe(1234)
  })
})
