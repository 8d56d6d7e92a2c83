import { api } from '../../store/api'

export type CustomerType = 'white-label' | 'reseller' | 'company'

export interface CustomerRequest {
  type: CustomerType
  cnpj: string
  companyName: string
  tradeName: string
  personInCharge: string
  phone: string
  email: string
  seller: string | null
  defaultQuery: boolean
  consultProtest: boolean
  quantities: { unit: number; batch: number; advanced: number; api: number }
  enabledQueryTypes: string[]
  panelAccess: boolean
  apiAccess: boolean
  whiteLabelUrl: string | null
}

export interface RegisteredCustomer {
  data: { id: string; ownerId: string; ownerEmail: string; generatedPassword: string }
  position: number
}

export interface CustomerSummary {
  id: string
  name: string
  type: CustomerType
  parentName: string | null
  cnpj: string | null
  tradeName: string | null
  personInCharge: string | null
  email: string | null
  phone: string | null
  active: boolean
  createdAt: string
}

export interface CustomerList {
  data: CustomerSummary[]
  total: number
  page: number
  perPage: number
}

export const customersApi = api.enhanceEndpoints({ addTagTypes: ['Customers'] }).injectEndpoints({
  endpoints: (build) => ({
    listCustomers: build.query<CustomerList, { search?: string; page: number; perPage: number; position?: number | null }>(
      {
        query: ({ search, page, perPage, position }) => ({
          url: 'customers',
          params: {
            ...(search ? { search } : {}),
            page,
            perPage,
            ...(position !== null && position !== undefined ? { position } : {}),
          },
        }),
        providesTags: ['Customers'],
      },
    ),
    registerCustomer: build.mutation<RegisteredCustomer, CustomerRequest>({
      query: (body) => ({ url: 'customers', method: 'POST', body }),
      invalidatesTags: ['Customers'],
    }),
  }),
})

export const { useListCustomersQuery, useRegisterCustomerMutation } = customersApi
