/** Credits API shapes (see /api/docs: the credits tag). */
export type CategoryName = 'unit' | 'advanced' | 'batch' | 'api'
export const CATEGORIES: CategoryName[] = ['unit', 'advanced', 'batch', 'api']

export type MovementKind = 'reservation' | 'settlement' | 'release' | 'limit_change' | 'grant' | 'grant_received'

export interface CategoryFigures {
  category: CategoryName
  unlimited: boolean
  limit: number | null
  used: number
  reserved: number
  granted: number
  available: number | null
}

export interface GroupBalances {
  id: string
  name: string
  type: string
  active: boolean
  categories: CategoryFigures[]
}

export interface BalancesData {
  group: GroupBalances
  children: GroupBalances[]
  position: number
  upToDate: boolean
}

export interface Movement {
  position: number
  createdAt: string
  groupId: string
  groupName: string | null
  category: CategoryName
  kind: MovementKind
  amount: number
  reason: string | null
  reasonId: string | null
  actorId: string | null
  actorName: string | null
  counterpartyGroupId: string | null
  counterpartyName: string | null
  limit: number | null
  used: number
  reserved: number
  granted: number
  balance: number | null
}

export interface HistoryResponse {
  data: Movement[]
  total: number
  page: number
  perPage: number
  upToDate: boolean
}

export interface HistoryFilters {
  from?: string
  to?: string
  category?: CategoryName
  groupId?: string
}

export interface ConsumptionDay {
  day: string
  category: CategoryName
  credits: number
}
