import { useTranslation } from 'react-i18next'
import Button from '@mui/material/Button'
import Chip from '@mui/material/Chip'
import Paper from '@mui/material/Paper'
import Typography from '@mui/material/Typography'
import { useAppSelector } from '../../store/hooks'
import { useListUsersQuery } from '../../store/generated/bemteviApi'
import { StepActions } from './SetupStepForm'

/** The set-up's last step: where the owner's invitation went, and whether the owner has signed in yet. */
export default function SetupOwnerStep({
  customerId,
  registeredTo,
  customerEmail,
  onBack,
  onFinish,
}: {
  customerId: string | null
  /** Where the registration said the invitation went (a customer registered in this set-up). */
  registeredTo: string | null | undefined
  customerEmail: string | null | undefined
  onBack: () => void
  onFinish: () => void
}) {
  const { t } = useTranslation()
  const position = useAppSelector((s) => s.session.lastPosition)
  const owners = useListUsersQuery({ groupId: customerId ?? '', position, pageSize: 20 }, { skip: !customerId, refetchOnMountOrArgChange: true })
  const owner = owners.data?.data.find((u) => u.role === 'owner')
  const invitedTo = registeredTo ?? owner?.email ?? customerEmail ?? null
  return (
    <Paper variant="outlined" sx={{ p: { xs: 2, sm: 3 }, minWidth: 0 }} data-testid="setup-owner">
      {invitedTo ? (
        <Typography sx={{ overflowWrap: 'anywhere' }} data-testid="setup-invited">
          {t('customers.setup.invitedTo', { email: invitedTo })}
        </Typography>
      ) : (
        <Typography>{t('customers.setup.ownerUnknown')}</Typography>
      )}
      {owner && (
        <Chip
          size="small"
          sx={{ mt: 1 }}
          color={owner.status === 'active' ? 'success' : 'default'}
          label={t(`customers.setup.ownerStatus.${owner.status}`)}
          data-testid="setup-owner-status"
        />
      )}
      <Typography variant="body2" color="text.secondary" sx={{ mt: 1 }}>
        {t('customers.setup.invitedHowTo')}
      </Typography>
      <StepActions>
        <Button variant="contained" onClick={onFinish} data-testid="setup-finish">
          {t('customers.setup.finish')}
        </Button>
        <Button onClick={onBack}>{t('customers.setup.back')}</Button>
      </StepActions>
    </Paper>
  )
}
