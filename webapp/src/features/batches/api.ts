/** The batch routes: the generated endpoints, and the URLs the browser reads itself (bearer token in a header). */
export {
  useBatchLimitsQuery,
  useCancelBatchMutation,
  useChangeBatchStatusMutation,
  useDeleteBatchMutation,
  useListBatchesQuery,
  useSubmitBatchMutation,
  useUploadBatchFileMutation,
  type BatchLimits,
  type BatchRow,
  type BatchStatus,
  type BatchUpload,
} from '../../store/generated/bemteviApi'

export type BatchKind = 'batch' | 'manual'

export const batchUrls = {
  progress: (id: string) => `/api/batches/${id}/progress`,
  file: (id: string) => `/api/batches/${id}/file`,
  returnFile: (id: string) => `/api/batches/${id}/return`,
}
