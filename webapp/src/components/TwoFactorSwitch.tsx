import { useState } from 'react'
import { useTranslation } from 'react-i18next'
import Alert from '@mui/material/Alert'
import FormControlLabel from '@mui/material/FormControlLabel'
import Switch from '@mui/material/Switch'
import Typography from '@mui/material/Typography'
import { useNotify } from './feedback'
import { errorText } from './errorText'
import { useChangeTwoFactorSettingMutation, useTwoFactorSettingQuery } from '../store/generated/bemteviApi'

/**
 * A group's two-step verification (a code mailed at sign-in), read from and saved to the group itself: on
 * my-account for one's own group (owner, admin) and on a customer's form for that customer.
 */
export default function TwoFactorSwitch({ groupId }: { groupId: string }) {
  const { t, i18n } = useTranslation()
  const exists = (k: string) => i18n.exists(k)
  const notify = useNotify()
  const setting = useTwoFactorSettingQuery({ groupId }, { refetchOnMountOrArgChange: true })
  const [change, changeState] = useChangeTwoFactorSettingMutation()
  // What was switched to, shown while it is saved and read back (a refusal switches it back).
  const [pending, setPending] = useState<boolean | null>(null)
  // The screens show it only to whoever may switch it; a refused read shows nothing.
  if (setting.isError) return null
  const enabled = pending ?? !!setting.data?.enabled

  async function toggle(value: boolean) {
    setPending(value)
    const result = await change({ groupId, twoFactorSettingRequest: { enabled: value } })
    // A refusal shows below the switch.
    if (!('error' in result)) {
      notify({ type: 'positive', message: t(value ? 'twoFactorSetting.on' : 'twoFactorSetting.off') })
      await setting.refetch()
    }
    setPending(null)
  }

  return (
    <div className="two-factor-setting" data-testid="two-factor-setting">
      <Typography variant="h6" component="h3">
        {t('twoFactorSetting.title')}
      </Typography>
      <FormControlLabel
        control={
          <Switch
            checked={enabled}
            disabled={setting.isFetching || changeState.isLoading || !setting.data}
            onChange={(e) => void toggle(e.target.checked)}
            slotProps={{ input: { 'data-testid': 'two-factor-switch' } as object }}
          />
        }
        label={t('twoFactorSetting.label')}
      />
      <Typography variant="body2" color="text.secondary">
        {t('twoFactorSetting.text')}
      </Typography>
      {changeState.isError && (
        <Alert severity="error" sx={{ mt: 1 }}>
          {errorText(changeState.error, t, exists)}
        </Alert>
      )}
    </div>
  )
}
