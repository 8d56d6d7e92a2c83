import type { FetchArgs } from '@reduxjs/toolkit/query'
import { API_BASE_URL } from './api'
import {
  bemteviApi,
  type ExportAuditApiArg,
  type ExportDataSubjectReportApiArg,
  type ExportHistoryApiArg,
  type ExportMonthlyCloseApiArg,
  type ExportReportApiArg,
  type ExportStatementApiArg,
} from './generated/bemteviApi'

/** The file exports: the browser fetches them itself (see features/credits/download.ts). */
interface ExportArgs {
  exportAudit: ExportAuditApiArg
  exportHistory: ExportHistoryApiArg
  exportStatement: ExportStatementApiArg
  exportReport: ExportReportApiArg
  exportDataSubjectReport: ExportDataSubjectReportApiArg
  exportMonthlyClose: ExportMonthlyCloseApiArg
}
const exportRequests: { [K in keyof ExportArgs]?: (arg: ExportArgs[K]) => string | FetchArgs } = {}

/**
 * The generated endpoints with what the schema does not say: which cached reads each command
 * makes stale. Screens use the generated hooks; the store is built from this api, so these tags
 * are in place before any screen asks for data.
 */
export const taggedApi = bemteviApi.enhanceEndpoints({
  addTagTypes: ['Dashboard', 'Roles', 'Group', 'Me', 'Users', 'Sessions', 'Credits', 'Customers', 'Brand', 'QueryTypes', 'Layouts', 'Batches'],
  endpoints: {
    // the frame
    rolesById: { providesTags: ['Roles'] },
    publicData: { providesTags: ['Group'] },
    runConsultation: { invalidatesTags: ['Dashboard'] },
    dashboard: { providesTags: ['Dashboard'] },
    dashboardUsage: { providesTags: ['Dashboard'] },
    dashboardTopConsumers: { providesTags: ['Dashboard'] },
    report: { providesTags: ['Dashboard'] },
    // one's own account
    myAccount: { providesTags: ['Me'] },
    editMyProfile: { invalidatesTags: ['Me', 'Users'] },
    uploadMyPhoto: { invalidatesTags: ['Me', 'Users'] },
    changeMyPreferences: { invalidatesTags: ['Me'] },
    mySessions: { providesTags: ['Sessions'] },
    signOutOtherSessions: { invalidatesTags: ['Sessions'] },
    // users of a group
    listUsers: { providesTags: ['Users'] },
    getUser: { providesTags: ['Users'] },
    addUser: { invalidatesTags: ['Users'] },
    editUser: { invalidatesTags: ['Users', 'Me'] },
    changeUserStatus: { invalidatesTags: ['Users'] },
    archiveUser: { invalidatesTags: ['Users'] },
    uploadUserPhoto: { invalidatesTags: ['Me', 'Users'] },
    // credits
    balances: { providesTags: ['Credits'] },
    history: { providesTags: ['Credits'] },
    consumption: { providesTags: ['Credits'] },
    financeStatement: { providesTags: ['Credits'] },
    // A customer's detail shows its balances (the guided set-up's credits step).
    grant: { invalidatesTags: ['Credits', 'Dashboard', 'Customers'] },
    setLimit: { invalidatesTags: ['Credits', 'Dashboard'] },
    // customers and their brands
    listCustomers: { providesTags: ['Customers'] },
    customer: { providesTags: ['Customers'] },
    registerCustomer: { invalidatesTags: ['Customers'] },
    // A saved brand is the signed-in group's own (my-brand) or an ancestor's: its public data is
    // fetched again at once, so the theme, title, favicon and logo change without a navigation.
    editCustomer: { invalidatesTags: ['Customers', 'Brand', 'Group'] },
    changeCustomerStatus: { invalidatesTags: ['Customers'] },
    brandOf: { providesTags: ['Brand'] },
    changeBrand: { invalidatesTags: ['Brand', 'Customers', 'Group'] },
    uploadImage: { invalidatesTags: ['Brand', 'Customers', 'Group'] },
    removeImage: { invalidatesTags: ['Brand', 'Customers', 'Group'] },
    // the enrichment catalogue: query types and layouts
    listQueryTypes: { providesTags: ['QueryTypes'] },
    getQueryType: { providesTags: ['QueryTypes'] },
    enabledQueryTypes: { providesTags: ['QueryTypes'] },
    addQueryType: { invalidatesTags: ['QueryTypes'] },
    editQueryType: { invalidatesTags: ['QueryTypes'] },
    changeQueryTypeStatus: { invalidatesTags: ['QueryTypes'] },
    listLayouts: { providesTags: ['Layouts'] },
    getLayout: { providesTags: ['Layouts'] },
    enabledLayouts: { providesTags: ['Layouts'] },
    addLayout: { invalidatesTags: ['Layouts'] },
    editLayout: { invalidatesTags: ['Layouts'] },
    changeLayoutStatus: { invalidatesTags: ['Layouts'] },
    copyLayout: { invalidatesTags: ['Layouts'] },
    // the purpose setting: the lookup forms ask whether the purpose is required
    purposeSetting: { providesTags: ['Group'] },
    setPurposeSetting: { invalidatesTags: ['Group'] },
    // batches and manual enrichment (a confirmed batch reserves credits)
    listBatches: { providesTags: ['Batches'] },
    getBatch: { providesTags: ['Batches'] },
    submitBatch: { invalidatesTags: ['Batches', 'Credits', 'Dashboard'] },
    cancelBatch: { invalidatesTags: ['Batches', 'Credits'] },
    deleteBatch: { invalidatesTags: ['Batches'] },
    // downloads keep the generated request (path, parameter names) but not the endpoint
    exportAudit: (definition) => {
      exportRequests.exportAudit = definition.query
    },
    exportHistory: (definition) => {
      exportRequests.exportHistory = definition.query
    },
    exportStatement: (definition) => {
      exportRequests.exportStatement = definition.query
    },
    exportReport: (definition) => {
      exportRequests.exportReport = definition.query
    },
    exportDataSubjectReport: (definition) => {
      exportRequests.exportDataSubjectReport = definition.query
    },
    exportMonthlyClose: (definition) => {
      exportRequests.exportMonthlyClose = definition.query
    },
  },
})

/** The URL a file export is fetched from, built by its generated endpoint (absent filters left out). */
export function exportUrl<K extends keyof ExportArgs>(name: K, arg: ExportArgs[K]): string {
  const build = exportRequests[name]
  if (!build) throw new Error(`no generated endpoint ${name}`)
  const request = build(arg)
  const { url, params } = typeof request === 'string' ? { url: request, params: undefined } : request
  const query = new URLSearchParams()
  for (const [key, value] of Object.entries((params ?? {}) as Record<string, unknown>)) {
    if (value !== undefined && value !== null && value !== '') query.set(key, String(value))
  }
  const text = query.toString()
  return `${API_BASE_URL}${url}${text ? `?${text}` : ''}`
}
