import { useTranslation } from 'react-i18next'
import Button from '@mui/material/Button'
import Paper from '@mui/material/Paper'
import Typography from '@mui/material/Typography'
import BrandEditor from '../../components/brand/BrandEditor'

/** The set-up's third step: the customer's brand, saved by the editor the brand screens use, or skipped. */
export default function SetupBrandStep({
  customerId,
  domainUrl,
  onBack,
  onNext,
}: {
  customerId: string | null
  /** The customer's own domain; none: its parent's serves it. */
  domainUrl: string | null | undefined
  onBack: () => void
  onNext: () => void
}) {
  const { t } = useTranslation()
  return (
    <Paper variant="outlined" sx={{ p: { xs: 2, sm: 3 }, minWidth: 0 }} data-testid="setup-brand">
      <Typography variant="body2" color="text.secondary" sx={{ mb: 1 }}>
        {t('customers.setup.brandHint')}
      </Typography>
      <Typography variant="body2" sx={{ mb: 2, overflowWrap: 'anywhere' }} data-testid="setup-domain">
        <strong>{t('customers.setup.domain')}: </strong>
        {domainUrl ? t('customers.setup.domainOf', { url: `https://${domainUrl}` }) : t('customers.setup.domainInherited')}
      </Typography>
      {customerId && (
        <BrandEditor
          groupId={customerId}
          onSaved={onNext}
          saveLabel={t('customers.setup.brandSave')}
          extraActions={
            <>
              <Button onClick={onBack}>{t('customers.setup.back')}</Button>
              <Button onClick={onNext} data-testid="setup-skip-brand">
                {t('customers.setup.skipBrand')}
              </Button>
            </>
          }
        />
      )}
    </Paper>
  )
}
