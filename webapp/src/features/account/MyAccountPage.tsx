import { useTranslation } from 'react-i18next'
import { Link } from 'react-router'
import Alert from '@mui/material/Alert'
import Button from '@mui/material/Button'
import Typography from '@mui/material/Typography'
import Breadcrumbs from '../../components/Breadcrumbs'
import { CheckInput } from '../../components/form/fields'
import Spinner from '../../components/Spinner'
import { useConfirm, useNotify } from '../../components/feedback'
import { formatDateTimeBR } from '../../lib/format'
import { isRouteAllowed, rolesRequestOf } from '../../lib/permissions'
import {
  useChangeMyPreferencesMutation,
  useMyAccountQuery,
  useMySessionsQuery,
  useRolesByIdQuery,
  useSignOutOtherSessionsMutation,
} from '../../store/generated/bemteviApi'
import { useAppSelector } from '../../store/hooks'
import { userErrorText } from '../../components/users/serverError'
import '../../components/users/users.css'
import TwoFactorSwitch from '../../components/TwoFactorSwitch'
import PasswordCard from './PasswordCard'
import { usePhoto } from './usePhoto'

// Who switches two-step verification for their own group (the API checks the same).
const GROUP_SETTING_ROLES = ['owner', 'admin', 'super-admin']

const SECTIONS: { key: 'marketing' | 'notifications' | 'privacy'; toggles: string[] }[] = [
  { key: 'marketing', toggles: ['marketingEmails', 'marketingPartners'] },
  { key: 'notifications', toggles: ['notifyBatchFinished', 'notifyLowBalance', 'notifySecurity'] },
  { key: 'privacy', toggles: ['privacyShowProfile', 'privacyUsageAnalytics'] },
]

/** my-account: title Registration, breadcrumb Manage my information, six sections (spec section 2). */
export default function MyAccountPage() {
  const { t, i18n } = useTranslation()
  const exists = (k: string) => i18n.exists(k)
  const notify = useNotify()
  const confirm = useConfirm()
  const user = useAppSelector((s) => s.auth.authUser)
  const position = useAppSelector((s) => s.session.lastPosition)
  const me = useMyAccountQuery({ position }, { refetchOnMountOrArgChange: true })
  const sessions = useMySessionsQuery({ position }, { refetchOnMountOrArgChange: true })
  const roles = useRolesByIdQuery(rolesRequestOf(user), { skip: !user })
  const [savePreferences] = useChangeMyPreferencesMutation()
  const [signOutOthers, signOutState] = useSignOutOtherSessionsMutation()
  const data = me.data?.data
  const photo = usePhoto(data?.id, data?.photoDigest)
  const mayOpenBalances = isRouteAllowed('balances', roles.data?.data.roles)

  async function toggle(key: string, value: boolean) {
    const result = await savePreferences({ preferencesRequest: { preferences: { [key]: value } } })
    if ('error' in result) notify({ type: 'negative', message: userErrorText(result.error, t, exists) })
    else notify({ type: 'positive', message: t('myAccount.preferencesSaved') })
  }

  async function endOthers() {
    if (!(await confirm({ message: t('myAccount.confirmSignOutOthers') }))) return
    const result = await signOutOthers()
    if ('error' in result) notify({ type: 'negative', message: userErrorText(result.error, t, exists) })
    else notify({ type: 'positive', message: t('myAccount.signedOutOthers') })
  }

  if (me.isLoading) return <Spinner />
  if (!data)
    return (
      <Alert severity="error" role="alert">
        {userErrorText(me.error, t, exists)}
      </Alert>
    )
  const others = (sessions.data?.data ?? []).filter((s) => !s.current).length
  return (
    <div className="page my-account" data-testid="my-account">
      <Breadcrumbs items={[{ label: t('myAccount.title') }, { label: t('myAccount.crumb') }]} />
      <h1>{t('myAccount.title')}</h1>
      <div className="account-sections">
        <section className="card" data-testid="account-personal">
          <h2>{t('myAccount.sections.personal')}</h2>
          <div className="photo-row">
            {photo ? (
              <img className="user-photo" src={photo} alt={t('myAccount.photo')} data-testid="account-photo" />
            ) : (
              <div className="user-photo" aria-hidden="true">
                {data.name.charAt(0).toUpperCase()}
              </div>
            )}
            <div>
              <strong data-testid="account-name">{data.name}</strong>
              <div className="muted small">{data.email}</div>
              <div className="muted small">
                {t(`users.roles.${data.role}`)} · {data.groupName ?? '-'}
              </div>
            </div>
          </div>
          <p className="muted small">{t('myAccount.sections.personalText')}</p>
          <Button component={Link} to="/edit-my-profile/my-account" variant="contained" data-testid="account-edit-profile">
            {t('myAccount.editProfile')}
          </Button>
        </section>

        <section className="card" data-testid="account-security">
          <h2>{t('myAccount.sections.security')}</h2>
          <p className="muted small">
            {data.passwordChangedAt
              ? t('myAccount.passwordChangedAt', { date: formatDateTimeBR(data.passwordChangedAt, i18n.language) })
              : t('myAccount.passwordNeverChanged')}
          </p>
          <PasswordCard />
          {user && GROUP_SETTING_ROLES.includes(user.role) && <TwoFactorSwitch groupId={user.groupId} />}
          {/* A heading like the password's and the two-step one's, spaced from the section above it. */}
          <Typography variant="h6" component="h3" sx={{ mt: 3 }}>
            {t('myAccount.sessions')}
          </Typography>
          <ul className="session-list" data-testid="account-sessions">
            {(sessions.data?.data ?? []).map((s) => (
              <li key={s.id}>
                <span>
                  {t('myAccount.sessionOpened', { date: formatDateTimeBR(s.openedAt, i18n.language) })}
                  {s.current && <strong> ({t('myAccount.thisSession')})</strong>}
                </span>
                <span className="muted">{t('myAccount.sessionExpires', { date: formatDateTimeBR(s.expiresAt, i18n.language) })}</span>
              </li>
            ))}
          </ul>
          {others > 0 ? (
            <Button
              variant="outlined"
              onClick={() => void endOthers()}
              disabled={signOutState.isLoading}
              data-testid="account-sign-out-others"
            >
              {t('myAccount.signOutOthers')}
            </Button>
          ) : (
            <p className="muted small">{t('myAccount.noOtherSessions')}</p>
          )}
        </section>

        <section className="card" data-testid="account-payments">
          <h2>{t('myAccount.sections.payments')}</h2>
          <p className="muted small">{t('myAccount.sections.paymentsText')}</p>
          {mayOpenBalances ? (
            <Button component={Link} to="/balances" variant="outlined">
              {t('myAccount.openBalances')}
            </Button>
          ) : (
            <p className="muted small">{t('myAccount.noBalances')}</p>
          )}
        </section>

        {SECTIONS.map((section) => (
          <section className="card" key={section.key} data-testid={`account-${section.key}`}>
            <h2>{t(`myAccount.sections.${section.key}`)}</h2>
            <ul className="toggle-list">
              {section.toggles.map((key) => (
                <li key={key}>
                  <CheckInput
                    label={t(`myAccount.preferences.${key}`)}
                    checked={!!data.preferences?.[key]}
                    onChange={(value) => void toggle(key, value)}
                    testId={`pref-${key}`}
                  />
                </li>
              ))}
            </ul>
          </section>
        ))}
      </div>
    </div>
  )
}
