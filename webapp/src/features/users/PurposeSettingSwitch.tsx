import { useTranslation } from 'react-i18next'
import FormControlLabel from '@mui/material/FormControlLabel'
import Paper from '@mui/material/Paper'
import Switch from '@mui/material/Switch'
import Typography from '@mui/material/Typography'
import { errorText } from '../../components/errorText'
import { useNotify } from '../../components/feedback'
import { useAppSelector } from '../../store/hooks'
import { usePurposeSettingQuery, useSetPurposeSettingMutation } from '../../store/generated/bemteviApi'

/** Whether the group's consultations must say their purpose (LGPD art. 6 I): the group's owners and admins set it
 * for its users (the users screen's people), or those of a group above it. */
export default function PurposeSettingSwitch({ groupId }: { groupId?: string }) {
  const { t, i18n } = useTranslation()
  const notify = useNotify()
  const own = useAppSelector((s) => s.auth.authUser?.groupId)
  const target = groupId ?? own
  const setting = usePurposeSettingQuery({ groupId: target })
  const [save, saving] = useSetPurposeSettingMutation()
  if (!target || !setting.data) return null

  async function change(purposeRequired: boolean) {
    if (!target) return
    const result = await save({ groupId: target, purposeSettingRequest: { purposeRequired } })
    if ('error' in result) notify({ type: 'negative', message: errorText(result.error, t, (k) => i18n.exists(k)) })
    else notify({ type: 'positive', message: t('users.purposeSetting.saved') })
  }

  return (
    <Paper variant="outlined" sx={{ px: 2, py: 1 }} data-testid="purpose-setting">
      <FormControlLabel
        control={
          <Switch
            checked={setting.data.purposeRequired}
            disabled={saving.isLoading || setting.isFetching}
            onChange={(e) => void change(e.target.checked)}
            slotProps={{ input: { 'data-testid': 'purpose-setting-switch' } as object }}
          />
        }
        label={t('users.purposeSetting.label')}
      />
      <Typography variant="body2" color="text.secondary">
        {t('users.purposeSetting.help')}
      </Typography>
    </Paper>
  )
}
