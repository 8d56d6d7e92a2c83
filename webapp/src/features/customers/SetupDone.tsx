import { useTranslation } from 'react-i18next'
import { Link as RouterLink } from 'react-router'
import Box from '@mui/material/Box'
import Button from '@mui/material/Button'
import Paper from '@mui/material/Paper'
import Stack from '@mui/material/Stack'
import Typography from '@mui/material/Typography'

/** After the last step: where the customer's set-up goes on. */
export default function SetupDone({ name, uniqueKey, id }: { name: string; uniqueKey: string; id: string }) {
  const { t } = useTranslation()
  const next = [
    { to: `/users/${uniqueKey}/${id}`, label: t('customers.setup.openUsers'), hint: t('customers.setup.openUsersHint'), testId: 'setup-next-users' },
    { to: `/add-new-customer/${uniqueKey}/${id}`, label: t('customers.setup.openBrand'), hint: t('customers.setup.openBrandHint'), testId: 'setup-next-brand' },
    { to: '/customer-list', label: t('customers.setup.toList'), hint: t('customers.setup.toListHint'), testId: 'setup-next-list' },
  ]
  return (
    <Paper variant="outlined" sx={{ p: { xs: 2, sm: 3 }, minWidth: 0 }} data-testid="setup-done">
      <Typography variant="h6" component="h2">
        {t('customers.setup.doneTitle')}
      </Typography>
      <Typography sx={{ mb: 2, overflowWrap: 'anywhere' }}>{t('customers.setup.doneText', { name })}</Typography>
      <Box sx={{ display: 'grid', gap: 2, gridTemplateColumns: { xs: 'minmax(0, 1fr)', md: 'repeat(3, minmax(0, 1fr))' } }}>
        {next.map(({ to, label, hint, testId }) => (
          <Stack key={testId} spacing={1} sx={{ alignItems: 'flex-start', minWidth: 0 }}>
            <Button component={RouterLink} to={to} variant="outlined" data-testid={testId}>
              {label}
            </Button>
            <Typography variant="body2" color="text.secondary">
              {hint}
            </Typography>
          </Stack>
        ))}
      </Box>
    </Paper>
  )
}
