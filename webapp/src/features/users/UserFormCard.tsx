import { useState, type FormEvent } from 'react'
import { useTranslation } from 'react-i18next'
import { useNotify } from '../../components/feedback'
import { useAppSelector } from '../../store/hooks'
import Spinner from '../../components/Spinner'
import Alert from '@mui/material/Alert'
import Box from '@mui/material/Box'
import Button from '@mui/material/Button'
import Paper from '@mui/material/Paper'
import { FormSection, SelectInput, TextInput } from '../../components/form/fields'
import { WIDE } from '../../components/form/formHooks'
import DetailsFields from '../../components/users/DetailsFields'
import { EMPTY_DETAILS, detailsBody, detailsOf, type UserForm, type UserRole } from '../../lib/users/details'
import { userErrorText } from '../../components/users/serverError'
import {
  useAddUserMutation,
  useEditUserMutation,
  useGetUserQuery,
  type AddedUserResponse,
  type UserSummary,
} from '../../store/generated/bemteviApi'
import { userErrors } from '../../lib/users/validation'

interface Props {
  user: UserSummary | null
  groupId?: string
  onClose: () => void
}

/** Add (user is null) or edit a user; after adding, the generated password is shown once. */
export default function UserFormCard(props: Props) {
  const position = useAppSelector((s) => s.session.lastPosition)
  const detail = useGetUserQuery({ userId: props.user?.id ?? '', position }, { skip: props.user === null })
  const loaded = detail.data?.data
  if (props.user === null) return <UserFormBody {...props} initial={{ ...EMPTY_DETAILS, email: '', role: 'user' }} />
  if (!loaded) return <Spinner />
  return <UserFormBody {...props} initial={{ ...detailsOf(loaded), email: loaded.email, role: loaded.role }} />
}

function UserFormBody({ user, groupId, onClose, initial }: Props & { initial: UserForm }) {
  const { t, i18n } = useTranslation()
  const notify = useNotify()
  const me = useAppSelector((s) => s.auth.authUser)
  const adding = user === null
  const [form, setForm] = useState<UserForm>(initial)
  const [errors, setErrors] = useState<Record<string, string>>({})
  const [added, setAdded] = useState<AddedUserResponse | null>(null)
  const [addUser, addState] = useAddUserMutation()
  const [editUser, editState] = useEditUserMutation()

  // The data-protection officer reads every tenant's data-subject report: a role of the platform's own group only.
  const platformGroup = !groupId || groupId === me?.groupId
  const roles: UserRole[] =
    me?.role === 'super-admin'
      ? ['user', 'admin', 'owner', 'super-admin', ...(platformGroup ? (['dpo'] as const) : [])]
      : ['user', 'admin', 'owner']
  const busy = addState.isLoading || editState.isLoading
  const failure = adding ? addState.error : editState.error

  async function submit(event: FormEvent) {
    event.preventDefault()
    const found = userErrors(form, adding)
    setErrors(found)
    if (Object.keys(found).length > 0) return
    if (adding) {
      const { email, role, ...details } = form
      const result = await addUser({
        addUserRequest: { ...detailsBody(details), email: email.trim(), role, ...(groupId ? { groupId } : {}) },
      })
      if ('data' in result && result.data) setAdded(result.data)
    } else {
      const result = await editUser({ userId: user.id, editUserRequest: { ...detailsBody(form), role: form.role } })
      if ('data' in result) {
        notify({ type: 'positive', message: t('users.saved') })
        onClose()
      }
    }
  }

  if (added)
    return (
      <section className="card generated-password" data-testid="user-added">
        <h2>{t('users.addedTitle')}</h2>
        <p>{t('users.addedText')}</p>
        <dl className="figures">
          <dt>{t('users.email')}</dt>
          <dd>{added.data.email}</dd>
          <dt>{t('users.generatedPassword')}</dt>
          <dd>
            <code data-testid="user-password">{added.data.generatedPassword}</code>
          </dd>
        </dl>
        <p className="muted small">{t('users.passwordOnce')}</p>
        <Button variant="contained" onClick={onClose} data-testid="user-added-done">
          {t('users.done')}
        </Button>
      </section>
    )

  return (
    <Paper
      component="form"
      variant="outlined"
      onSubmit={submit}
      noValidate
      data-testid="user-form"
      sx={{ p: { xs: 2, sm: 3 }, display: 'grid', gap: 2, gridTemplateColumns: { xs: 'minmax(0, 1fr)', sm: 'repeat(2, minmax(0, 1fr))' } }}
    >
      <FormSection>{adding ? t('users.addTitle') : t('users.editTitle')}</FormSection>
      <TextInput
        label={`${t('users.email')}${adding ? ' *' : ''}`}
        type="email"
        value={form.email}
        disabled={!adding}
        hint={adding ? undefined : t('users.emailFixed')}
        onChange={(email) => setForm({ ...form, email })}
        error={errors.email ? t(errors.email) : undefined}
        testId="user-email"
      />
      <SelectInput
        label={`${t('users.role')} *`}
        value={form.role}
        onChange={(role: UserRole) => setForm({ ...form, role })}
        options={roles.map((role) => ({ value: role, label: t(`users.roles.${role}`) }))}
        testId="user-role"
      />
      <DetailsFields form={form} errors={errors} onChange={(patch) => setForm({ ...form, ...patch })} />
      {failure && (
        <Alert severity="error" role="alert" data-testid="user-error" sx={WIDE}>
          {userErrorText(failure, t, (k) => i18n.exists(k))}
        </Alert>
      )}
      <Box sx={{ ...WIDE, display: 'flex', gap: 1, flexWrap: 'wrap' }}>
        <Button type="submit" variant="contained" disabled={busy} data-testid="user-submit">
          {busy ? t('users.saving') : t('users.save')}
        </Button>
        <Button onClick={onClose}>{t('users.cancel')}</Button>
      </Box>
    </Paper>
  )
}
