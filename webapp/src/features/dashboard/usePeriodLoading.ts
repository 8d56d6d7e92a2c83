import { useState } from 'react'

/**
 * Whether a chart waits for its period's first answer: the placeholder stands in for the charts only then. A
 * refetch of the period on screen (a write elsewhere moved the read position) keeps its charts in place, where
 * a placeholder would flash over them.
 */
export function usePeriodLoading(period: string | null, query: { isSuccess: boolean; isFetching: boolean }): boolean {
  const [answered, setAnswered] = useState<string | null>(null)
  // React's pattern for state kept from an earlier render: set while rendering, when what it follows changed.
  if (query.isSuccess && !query.isFetching && answered !== period) setAnswered(period)
  return period !== null && query.isFetching && answered !== period
}
