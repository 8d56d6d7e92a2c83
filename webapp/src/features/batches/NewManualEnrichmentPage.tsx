import { useTranslation } from 'react-i18next'
import { Link, useNavigate } from 'react-router'
import Button from '@mui/material/Button'
import Stack from '@mui/material/Stack'
import Typography from '@mui/material/Typography'
import UploadFlow from './UploadFlow'

/** new-manual-enrichment: customer, layout, extension, file, observation; preview; confirm. */
export default function NewManualEnrichmentPage() {
  const { t } = useTranslation()
  const navigate = useNavigate()
  return (
    <Stack sx={{ gap: 2, maxWidth: 1100, width: '100%' }}>
      <Stack direction="row" sx={{ justifyContent: 'space-between', alignItems: 'center', gap: 1, flexWrap: 'wrap' }}>
        <Typography variant="h5" component="h1" sx={{ fontWeight: 700 }}>
          {t('batches.newManualTitle')}
        </Typography>
        <Button component={Link} to="/manual-enrichment">
          {t('batches.backToList')}
        </Button>
      </Stack>
      <UploadFlow manual onSubmitted={() => void navigate('/manual-enrichment')} />
    </Stack>
  )
}
