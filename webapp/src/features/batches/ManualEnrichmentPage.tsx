import { useTranslation } from 'react-i18next'
import { Link } from 'react-router'
import Button from '@mui/material/Button'
import BatchList from './BatchList'

/** manual-enrichment: the enrichments of the group and (owners, super-admins) its customers. */
export default function ManualEnrichmentPage() {
  const { t } = useTranslation()
  return (
    <BatchList
      kind="manual"
      subtreeChoice
      title={t('batches.manualTitle')}
      intro={t('batches.manualIntro')}
      actions={
        <Button variant="contained" component={Link} to="/new-manual-enrichment" data-testid="manual-add">
          {t('batches.newManual')}
        </Button>
      }
      emptyAction={
        <Button variant="outlined" component={Link} to="/new-manual-enrichment" data-testid="manual-add-first">
          {t('batches.newManual')}
        </Button>
      }
    />
  )
}
