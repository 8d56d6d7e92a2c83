import { api } from '../../store/api'

export interface AuditRow {
  position: number
  createdAt: string
  tenantId: string
  tenantName: string | null
  actorId: string | null
  actorName: string | null
  actorEmail: string | null
  aggregateType: string
  eventType: string
  aggregateId: string
  summary: string
}

export interface AuditFilters {
  user_id?: string
  type?: string
  from?: string
  to?: string
  children?: boolean
}

export interface AuditPage {
  data: AuditRow[]
  total: number
  page: number
  perPage: number
  types: string[]
}

/** Query-string parameters of the filters (empty ones left out), shared by the list and the export. */
export function auditParams(filters: AuditFilters): Record<string, string> {
  const params: Record<string, string> = {}
  for (const [key, value] of Object.entries(filters)) {
    if (value === undefined || value === null || value === '' || value === false) continue
    params[key] = String(value)
  }
  return params
}

export const auditApi = api.injectEndpoints({
  endpoints: (build) => ({
    auditLog: build.query<AuditPage, AuditFilters & { page: number; perPage: number; position?: number | null }>({
      query: ({ page, perPage, position, ...filters }) => ({
        url: 'audit',
        params: { ...auditParams(filters), page, perPage, ...(position != null ? { position } : {}) },
      }),
    }),
  }),
})

export const { useAuditLogQuery } = auditApi
