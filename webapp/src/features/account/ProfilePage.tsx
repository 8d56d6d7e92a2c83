import { useEffect, useMemo, useState, type FormEvent } from 'react'
import { useTranslation } from 'react-i18next'
import { Link, useNavigate, useParams } from 'react-router'
import Alert from '@mui/material/Alert'
import Button from '@mui/material/Button'
import Breadcrumbs from '../../components/Breadcrumbs'
import { FilePicker } from '../../components/form/fields'
import Spinner from '../../components/Spinner'
import { useNotify } from '../../components/feedback'
import {
  useEditMyProfileMutation,
  useEditUserMutation,
  useGetUserQuery,
  useMyAccountQuery,
  useUploadMyPhotoMutation,
  useUploadUserPhotoMutation,
  type UserDetail,
} from '../../store/generated/bemteviApi'
import { useAppSelector } from '../../store/hooks'
import DetailsFields from '../../components/users/DetailsFields'
import { detailsBody, detailsOf, type UserDetailsForm } from '../../lib/users/details'
import { userErrorText } from '../../components/users/serverError'
import { detailsErrors, photoError, PHOTO_TYPES } from '../../lib/users/validation'
import '../../components/users/users.css'
import { usePhoto } from './usePhoto'

/**
 * edit-my-profile/:previousRoute?/:uniqueKey?/:id? and
 * personal-information/:previousRoute?/:uniqueKey?/:id?/:groupUniqueKey?/:groupId? (the same screen):
 * one's own profile, or — with an id, for whoever manages that user — another user's.
 */
export default function ProfilePage() {
  const { t, i18n } = useTranslation()
  const { id } = useParams()
  const authUser = useAppSelector((s) => s.auth.authUser)
  const position = useAppSelector((s) => s.session.lastPosition)
  const other = !!id && id !== String(authUser?.id ?? '')
  const mine = useMyAccountQuery({ position }, { skip: other, refetchOnMountOrArgChange: true })
  const theirs = useGetUserQuery({ userId: id ?? '', position }, { skip: !other, refetchOnMountOrArgChange: true })
  const query = other ? theirs : mine
  const loaded = query.data?.data
  if (query.isLoading) return <Spinner />
  if (!loaded)
    return (
      <div className="alert alert-error" role="alert">
        {userErrorText(query.error, t, (k) => i18n.exists(k))}
      </div>
    )
  return <ProfileForm key={loaded.id} loaded={loaded} other={other} />
}

function ProfileForm({ loaded, other }: { loaded: UserDetail; other: boolean }) {
  const { t, i18n } = useTranslation()
  const exists = (k: string) => i18n.exists(k)
  const notify = useNotify()
  const navigate = useNavigate()
  const { previousRoute } = useParams()
  const [form, setForm] = useState<UserDetailsForm>(() => detailsOf(loaded))
  const [errors, setErrors] = useState<Record<string, string>>({})
  const [file, setFile] = useState<File | null>(null)
  const [saveMine, mineState] = useEditMyProfileMutation()
  const [saveTheirs, theirsState] = useEditUserMutation()
  const [uploadMine, uploadMineState] = useUploadMyPhotoMutation()
  const [uploadTheirs, uploadTheirsState] = useUploadUserPhotoMutation()
  const uploadState = other ? uploadTheirsState : uploadMineState
  const stored = usePhoto(loaded.id, loaded.photoDigest)
  const preview = useMemo(() => (file ? URL.createObjectURL(file) : null), [file])
  useEffect(() => () => (preview ? URL.revokeObjectURL(preview) : undefined), [preview])
  const back = `/${previousRoute && /^[a-z-]+$/.test(previousRoute) ? previousRoute : 'my-account'}`

  function choose(chosen: File | null) {
    const problem = chosen ? photoError(chosen) : null
    setErrors((current) => {
      const rest = Object.fromEntries(Object.entries(current).filter(([key]) => key !== 'photo'))
      return problem ? { ...rest, photo: problem } : rest
    })
    setFile(problem ? null : chosen)
  }

  async function submit(event: FormEvent) {
    event.preventDefault()
    const found = detailsErrors(form)
    setErrors(found)
    if (Object.keys(found).length > 0) return
    if (file) {
      const sent = other ? await uploadTheirs({ userId: loaded.id, body: file }) : await uploadMine({ body: file })
      if ('error' in sent) return
      setFile(null)
      notify({ type: 'positive', message: t('myAccount.photoSaved') })
    }
    const saved = other
      ? await saveTheirs({ userId: loaded.id, editUserRequest: { ...detailsBody(form), role: loaded.role } })
      : await saveMine({ userDetailsRequest: detailsBody(form) })
    if ('data' in saved) {
      notify({ type: 'positive', message: t('myAccount.saved') })
      navigate(back)
    }
  }

  const failure = uploadState.error ?? (other ? theirsState.error : mineState.error)
  const busy = uploadMineState.isLoading || uploadTheirsState.isLoading || mineState.isLoading || theirsState.isLoading
  const shown = preview ?? stored
  return (
    <div className="page profile" data-testid="profile-page">
      <Breadcrumbs items={[{ label: t('myAccount.title'), to: '/my-account' }, { label: t('myAccount.profileTitle') }]} />
      <div className="page-header">
        <h1>{t('myAccount.profileTitle')}</h1>
        <Button component={Link} to={back} variant="outlined">
          {t('myAccount.back')}
        </Button>
      </div>
      <form className="card form-grid" onSubmit={submit} noValidate data-testid="profile-form">
        <div className="form-wide photo-row">
          {shown ? (
            <img className="user-photo" src={shown} alt={t('myAccount.photo')} data-testid="profile-photo" />
          ) : (
            <div className="user-photo" aria-hidden="true">
              {loaded.name.charAt(0).toUpperCase()}
            </div>
          )}
          <FilePicker
            label={t('myAccount.choosePhoto')}
            accept={PHOTO_TYPES.join(',')}
            fileName={file?.name}
            noFile={t('myAccount.noPhotoChosen')}
            onChange={choose}
            testId="profile-photo-input"
            error={errors.photo ? t(errors.photo) : undefined}
            hint={t('myAccount.photoHint')}
            errorTestId="profile-photo-error"
          />
          <div className="muted small">
            <div>{loaded.email}</div>
            <div>{t(`users.roles.${loaded.role}`)}</div>
          </div>
        </div>
        <DetailsFields form={form} errors={errors} onChange={(patch) => setForm({ ...form, ...patch })} />
        {failure && (
          <Alert severity="error" role="alert" className="form-wide" data-testid="profile-error">
            {userErrorText(failure, t, exists)}
          </Alert>
        )}
        <div className="actions form-wide">
          <Button type="submit" variant="contained" disabled={busy} data-testid="profile-submit">
            {busy ? t('myAccount.saving') : t('myAccount.save')}
          </Button>
        </div>
      </form>
    </div>
  )
}
