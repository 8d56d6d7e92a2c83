// Shapes of the Bemtevi HTTP API (all under /api). The request and plain answer types come from
// store/generated/bemteviApi.ts (generated from the API's OpenAPI schema by `npm run codegen`);
// the ones kept by hand here are wider (ids as numbers in tests, typed consultation results).
import type * as Generated from '../store/generated/bemteviApi'

export type UserStatus = 'active' | 'inactive' | 'first-access'

export interface AuthUser {
  id: string | number
  uniqueKey: string
  groupId: string | number | null
  groupUniqueKey: string | null
  name: string
  email: string
  role: string
  status: UserStatus | string
}

export type LoginRequest = Generated.LoginRequest

/** The login answer (generated), with the user's ids allowed as numbers as older servers sent them. */
export type LoginResponse = Omit<Generated.LoginResponse, 'data'> & { data: AuthUser }

export type MessageResponse = Generated.MessageResponse
export type LogoutRequest = Generated.LogoutRequest

/** A group's public data (generated), with its id allowed as a number. */
export type GroupPublicData = Omit<Generated.GroupPublicData, 'id'> & { id: string | number | null }

export type GroupPublicDataRequest =
  | { domain_url: string }
  | { group_id: string | number; group_unique_key: string }

export interface RoleMenuEntry {
  name: string
  label: string
  icon?: string | null
  route?: string | null
  active_routes?: string[] | null
  children?: RoleMenuEntry[] | null
}

export interface UserRolesRequest {
  user_id: string | number
  user_unique_key: string
  group_id: string | number | null
}

export interface UserRolesResponse {
  data: { group: GroupPublicData | null; roles: RoleMenuEntry[] }
}

export interface Address {
  street: string | null
  number: string | null
  complement: string | null
  neighborhood: string | null
  city: string | null
  state: string | null
  zip: string | null
}

export interface Phone {
  number: string | null
  type: string | null
}

export interface Protest {
  date: string | null
  amount: number | string | null
  notary: string | null
  city: string | null
  state: string | null
}

export interface PersonResult {
  kind: 'person'
  cpf: string
  name: string | null
  gender: 'M' | 'F' | string | null
  birth_date: string | null
  age: number | null
  sign: string | null
  mother: string | null
  father: string | null
  marital_status: string | null
  education: string | null
  profession: string | null
  income: number | string | null
  social_class: string | null
  score: number | string | null
  phones: Phone[] | null
  emails: string[] | null
  addresses: Address[] | null
  societies: { cnpj: string; company_name: string | null; role: string | null; since: string | null }[] | null
  protests: Protest[] | null
  financial_pendings: { creditor: string | null; amount: number | string | null; date: string | null }[] | null
  check_inquiries: number | null
  death: null | { date: string | null; book: string | null; sheet: string | null; registry_office: string | null }
}

export interface CompanyResult {
  kind: 'company'
  cnpj: string
  company_name: string | null
  trade_name: string | null
  opening_date: string | null
  status: string | null
  legal_nature: string | null
  main_activity: { code: string | null; description: string | null } | null
  size: string | null
  share_capital: number | string | null
  address: Address | null
  phones: Phone[] | null
  emails: string[] | null
  partners: { name: string | null; document: string | null; role: string | null; since: string | null }[] | null
  score: number | string | null
  protests: Protest[] | null
}

export type DocumentType = 'cpf' | 'cnpj'

export interface Consultation {
  id: string | number
  document: string
  documentType: DocumentType
  queryType: string | null
  createdAt: string
  result: PersonResult | CompanyResult
}

export type ConsultationRequest = Generated.ConsultationRequest

export interface ConsultationResponse {
  data: Consultation
  position: number
}

export interface DashboardData {
  consultationsTotal: number
  consultationsToday: number
  byDay: { day: string; count: number }[]
  credits: { unit: { used: number; limit: number | null } }
}

export interface DashboardResponse {
  data: DashboardData
}

/** An error answer (the API's ErrorResponse; `statusCode` as some proxies add it). */
export type ApiErrorBody = Partial<Generated.ErrorResponse> & { statusCode?: number }
