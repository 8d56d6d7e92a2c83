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
  uniqueKey: string
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

export type ToggleName = 'allowCreatedWhiteLabel' | 'allowUploadingManualQueries' | 'allowDeletedAndCancelled'
export type Toggles = Record<ToggleName, boolean>
export const TOGGLE_NAMES: ToggleName[] = ['allowCreatedWhiteLabel', 'allowUploadingManualQueries', 'allowDeletedAndCancelled']

export type BrandImageKind = 'horizontalLogo' | 'iconogram' | 'loginBanner' | 'advancedQueryBanner'
export const IMAGE_SIZES: Record<BrandImageKind, [number, number]> = {
  horizontalLogo: [208, 68],
  iconogram: [500, 500],
  loginBanner: [708, 896],
  advancedQueryBanner: [200, 1134],
}

export interface BrandValues {
  appTitle: string | null
  primaryColor: string | null
  secondaryColor: string | null
  lighterColor: string | null
  horizontalLogo: string | null
  iconogram: string | null
  loginBanner: string | null
  advancedQueryBanner: string | null
}

export type CustomerEditRequest = Omit<CustomerRequest, 'quantities'> & { toggles: Partial<Toggles> }

export interface CategoryFigures {
  category: string
  unlimited: boolean
  limit: number | null
  used: number
  available: number | null
}

export interface CustomerDetail extends CustomerSummary {
  parentId: string | null
  domainUrl: string | null
  companyName: string
  seller: string | null
  defaultQuery: boolean | null
  consultProtest: boolean | null
  panelAccess: boolean | null
  apiAccess: boolean | null
  enabledQueryTypes: string[]
  toggles: Toggles
  brand: BrandValues
  resolvedBrand: BrandValues
  parentEnabledQueryTypes: string[]
  parentToggles: Toggles
  credits: CategoryFigures[]
}

export interface BrandView {
  own: BrandValues
  resolved: BrandValues
  groupId: string
  groupName: string
}

export type BrandChange = Partial<Pick<BrandValues, 'appTitle' | 'primaryColor' | 'secondaryColor' | 'lighterColor'>>

const withPosition = (position?: number | null) =>
  position !== null && position !== undefined ? { position } : {}

export const customersApi = api.enhanceEndpoints({ addTagTypes: ['Customers', 'Brand'] }).injectEndpoints({
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
    getCustomer: build.query<{ data: CustomerDetail }, { id: string; position?: number | null }>({
      query: ({ id, position }) => ({ url: `customers/${id}`, params: withPosition(position) }),
      providesTags: ['Customers'],
    }),
    editCustomer: build.mutation<{ position: number }, { id: string; body: CustomerEditRequest }>({
      query: ({ id, body }) => ({ url: `customers/${id}`, method: 'PUT', body }),
      invalidatesTags: ['Customers', 'Brand'],
    }),
    setCustomerStatus: build.mutation<{ position: number }, { id: string; active: boolean }>({
      query: ({ id, active }) => ({ url: `customers/${id}/status`, method: 'POST', body: { active } }),
      invalidatesTags: ['Customers'],
    }),
    getBrand: build.query<BrandView, { groupId: string; position?: number | null }>({
      query: ({ groupId, position }) => ({ url: `group/${groupId}/brand`, params: withPosition(position) }),
      providesTags: ['Brand'],
    }),
    changeBrand: build.mutation<{ position: number }, { groupId: string; body: BrandChange }>({
      query: ({ groupId, body }) => ({ url: `group/${groupId}/brand`, method: 'PUT', body }),
      invalidatesTags: ['Brand', 'Customers'],
    }),
    uploadBrandImage: build.mutation<{ url: string; position: number }, { groupId: string; kind: BrandImageKind; file: File }>({
      query: ({ groupId, kind, file }) => ({
        url: `group/${groupId}/brand/${kind}`,
        method: 'PUT',
        body: file,
        headers: { 'Content-Type': file.type || 'application/octet-stream' },
      }),
      invalidatesTags: ['Brand', 'Customers'],
    }),
    removeBrandImage: build.mutation<{ position: number }, { groupId: string; kind: BrandImageKind }>({
      query: ({ groupId, kind }) => ({ url: `group/${groupId}/brand/${kind}`, method: 'DELETE' }),
      invalidatesTags: ['Brand', 'Customers'],
    }),
  }),
})

export const {
  useListCustomersQuery,
  useRegisterCustomerMutation,
  useGetCustomerQuery,
  useEditCustomerMutation,
  useSetCustomerStatusMutation,
  useGetBrandQuery,
  useChangeBrandMutation,
  useUploadBrandImageMutation,
  useRemoveBrandImageMutation,
} = customersApi
