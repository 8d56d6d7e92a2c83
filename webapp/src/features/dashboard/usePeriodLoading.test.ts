import { renderHook } from '@testing-library/react'
import { describe, expect, it } from 'vitest'
import { usePeriodLoading } from './usePeriodLoading'

const fetching = { isSuccess: false, isFetching: true }
const answered = { isSuccess: true, isFetching: false }
const refetching = { isSuccess: true, isFetching: true }

describe("a chart's placeholder", () => {
  it('shows while a period first loads, not while the period on screen is fetched again', () => {
    const { result, rerender } = renderHook(({ period, query }) => usePeriodLoading(period, query), {
      initialProps: { period: '2026-11-01|2026-11-28' as string | null, query: fetching },
    })
    expect(result.current).toBe(true)
    rerender({ period: '2026-11-01|2026-11-28', query: answered })
    expect(result.current).toBe(false)
    rerender({ period: '2026-11-01|2026-11-28', query: refetching })
    expect(result.current).toBe(false)
    // Another period: its charts are not the ones on screen.
    rerender({ period: '2026-10-01|2026-10-31', query: refetching })
    expect(result.current).toBe(true)
    rerender({ period: '2026-10-01|2026-10-31', query: answered })
    expect(result.current).toBe(false)
    rerender({ period: null, query: answered })
    expect(result.current).toBe(false)
  })
})
