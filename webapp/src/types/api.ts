// Shapes of the Bemtevi HTTP API (all under /api) are generated from its OpenAPI schema into
// store/generated/bemteviApi.ts by `npm run codegen`. Kept here: friendlier names for a few of
// them, and the consultation results, which the API types as an open object.
import type { ConsultationData, ErrorResponse, MenuEntryModel } from '../store/generated/bemteviApi'

/** One entry of a role's menu (and the routes it opens). */
export type RoleMenuEntry = MenuEntryModel

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
  /** Absent for a group that does not consult protests (its customer form says so): no section at all. */
  protests?: Protest[] | null
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
  /** Absent for a group that does not consult protests (its customer form says so): no section at all. */
  protests?: Protest[] | null
}

/**
 * A consultation with its result read as a person or a company; null when nothing was found
 * (status 'not_found') or the source failed ('failed').
 */
export type Consultation = Omit<ConsultationData, 'result'> & { result: PersonResult | CompanyResult | null }

/** The consultation answer (generated) with its open `result` read as the shapes above. */
export function typedConsultation(data: ConsultationData): Consultation {
  return data as Consultation
}

/** An error answer (the API's ErrorResponse; `statusCode` as some proxies add it). */
export type ApiErrorBody = Partial<ErrorResponse> & { statusCode?: number }
