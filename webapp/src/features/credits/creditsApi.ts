import { api } from '../../store/api'
import type { BalancesData, CategoryName, ConsumptionDay, HistoryFilters, HistoryResponse } from './types'

type Position = { position?: number | null }

function withPosition<T extends object>(params: T, position?: number | null): T & { position?: number } {
  return position !== null && position !== undefined ? { ...params, position } : params
}

/** Removes empty filters so the URL carries only what the user chose. */
export function filterParams(filters: HistoryFilters): Record<string, string> {
  return Object.fromEntries(Object.entries(filters).filter(([, v]) => v !== undefined && v !== '')) as Record<
    string,
    string
  >
}

export const creditsApi = api.enhanceEndpoints({ addTagTypes: ['Credits'] }).injectEndpoints({
  endpoints: (build) => ({
    getBalances: build.query<BalancesData, Position>({
      query: ({ position }) => ({ url: 'credits/balances', params: withPosition({}, position) }),
      transformResponse: (response: { data: BalancesData }) => response.data,
      providesTags: ['Credits'],
    }),
    getHistory: build.query<HistoryResponse, HistoryFilters & Position & { page: number; perPage: number }>({
      query: ({ position, page, perPage, ...filters }) => ({
        url: 'credits/history',
        params: withPosition({ ...filterParams(filters), page, perPage }, position),
      }),
      providesTags: ['Credits'],
    }),
    getConsumption: build.query<ConsumptionDay[], HistoryFilters>({
      query: (filters) => ({ url: 'credits/consumption', params: filterParams(filters) }),
      transformResponse: (response: { data: ConsumptionDay[] }) => response.data,
      providesTags: ['Credits'],
    }),
    grantCredits: build.mutation<{ position: number }, { groupId: string; category: CategoryName; amount: number }>({
      query: (body) => ({ url: 'credits/grants', method: 'POST', body }),
      invalidatesTags: ['Credits', 'Dashboard'],
    }),
    setCreditLimit: build.mutation<
      { position: number },
      { groupId: string; category: CategoryName; limit: number | null }
    >({
      query: (body) => ({ url: 'credits/limits', method: 'PUT', body }),
      invalidatesTags: ['Credits', 'Dashboard'],
    }),
  }),
})

export const {
  useGetBalancesQuery,
  useGetHistoryQuery,
  useGetConsumptionQuery,
  useGrantCreditsMutation,
  useSetCreditLimitMutation,
} = creditsApi
