import { useTranslation } from 'react-i18next'
import Button from '@mui/material/Button'
import BatchList from './BatchList'
import UploadFlow from './UploadFlow'

/** The upload form above the list: brought into view, its first field (the layout) focused. */
function goToUpload() {
  const form = document.querySelector<HTMLElement>('[data-testid="batch-upload"]')
  form?.scrollIntoView({ behavior: 'smooth', block: 'start' })
  form?.querySelector<HTMLElement>('[role="combobox"], input, button')?.focus({ preventScroll: true })
}

/** batch-query (Queries ▸ In batch): upload, free preview, confirm; the group's batches below. */
export default function BatchQueryPage() {
  const { t } = useTranslation()
  return (
    <BatchList
      kind="batch"
      title={t('batches.batchTitle')}
      intro={t('batches.batchIntro')}
      top={<UploadFlow />}
      emptyAction={
        <Button variant="contained" onClick={goToUpload} data-testid="batch-send-first">
          {t('batches.list.sendFirst')}
        </Button>
      }
    />
  )
}
