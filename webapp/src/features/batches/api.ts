/**
 * The batch routes of the shared contract (issue 18), written by hand ONLY until the API branch
 * lands: then `npm run codegen` gives these endpoints and types in store/generated, and this file
 * shrinks to re-exports of them (the screens import from here, so nothing else changes).
 */
import { api } from '../../store/api'

export type BatchStatus = 'waiting' | 'processing' | 'available' | 'error' | 'canceled'
export type BatchKind = 'batch' | 'manual'

export interface BatchUpload {
  uploadId: string
  fileName: string
  extension: string
  size: number
  encoding: string
  records: number
  validDocuments: number
  invalidDocuments: number
  foundInDataset: number
  creditsNeeded: number
  /** null: unlimited */
  creditsAvailable: number | null
  unknownExitFields: string[]
}

export interface BatchRow {
  id: string
  createdAt: string
  kind: BatchKind
  status: BatchStatus
  userId: string
  userName: string
  groupId: string
  groupName: string
  layoutId: string
  layoutName: string
  observation: string | null
  fileName: string
  extension: string
  records: number
  done: number
  found: number
  invalid: number
  creditsReserved: number
  creditsCharged: number
  returnFileName: string | null
  message: string | null
  startedAt: string | null
  finishedAt: string | null
}

export interface BatchList {
  items: BatchRow[]
  total: number
  upToDate: boolean
}

export interface ListBatchesArg {
  page: number
  pageSize: number
  sort?: string
  status?: BatchStatus
  kind?: BatchKind
  scope?: 'own' | 'subtree'
  position?: number | null
}

export interface SubmitBatchBody {
  uploadId: string
  groupId?: string
  observation?: string
  webhookUrl?: string
  webhookSecret?: string
}

const batchApi = api.enhanceEndpoints({ addTagTypes: ['Batches'] }).injectEndpoints({
  endpoints: (build) => ({
    uploadBatch: build.mutation<BatchUpload, { file: File; layoutId: string; queryType?: string }>({
      query: ({ file, layoutId, queryType }) => {
        const body = new FormData()
        body.append('file', file)
        body.append('layoutId', layoutId)
        if (queryType) body.append('queryType', queryType)
        return { url: '/batches/uploads', method: 'POST', body }
      },
    }),
    submitBatch: build.mutation<{ id: string; position: number }, SubmitBatchBody>({
      query: (body) => ({ url: '/batches', method: 'POST', body }),
      invalidatesTags: ['Batches'],
    }),
    listBatches: build.query<BatchList, ListBatchesArg>({
      query: (params) => ({ url: '/batches', params: { ...params } }),
      providesTags: ['Batches'],
    }),
    cancelBatch: build.mutation<{ position: number }, string>({
      query: (id) => ({ url: `/batches/${id}/cancel`, method: 'POST' }),
      invalidatesTags: ['Batches'],
    }),
    deleteBatch: build.mutation<{ position: number }, string>({
      query: (id) => ({ url: `/batches/${id}`, method: 'DELETE' }),
      invalidatesTags: ['Batches'],
    }),
  }),
})

export const {
  useUploadBatchMutation,
  useSubmitBatchMutation,
  useListBatchesQuery,
  useCancelBatchMutation,
  useDeleteBatchMutation,
} = batchApi

/** The routes the browser reads itself (bearer token in a header): progress stream and files. */
export const batchUrls = {
  progress: (id: string) => `/api/batches/${id}/progress`,
  file: (id: string) => `/api/batches/${id}/file`,
  returnFile: (id: string) => `/api/batches/${id}/return`,
}
