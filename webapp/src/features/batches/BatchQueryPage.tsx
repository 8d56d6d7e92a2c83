import { useTranslation } from 'react-i18next'
import BatchList from './BatchList'
import UploadFlow from './UploadFlow'

/** batch-query (Queries ▸ In batch): upload, free preview, confirm; the group's batches below. */
export default function BatchQueryPage() {
  const { t } = useTranslation()
  return (
    <BatchList kind="batch" title={t('batches.batchTitle')} intro={t('batches.batchIntro')} top={<UploadFlow />} />
  )
}
