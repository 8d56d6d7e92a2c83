import { useEffect, useMemo, useState, type ChangeEvent, type FormEvent } from 'react'
import { useTranslation } from 'react-i18next'
import { Link, useNavigate, useParams } from 'react-router'
import Breadcrumbs from '../../components/Breadcrumbs'
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

  function choose(event: ChangeEvent<HTMLInputElement>) {
    const chosen = event.target.files?.[0] ?? null
    const problem = chosen ? photoError(chosen) : null
    setErrors((current) => {
      const rest = Object.fromEntries(Object.entries(current).filter(([key]) => key !== 'photo'))
      return problem ? { ...rest, photo: problem } : rest
    })
    setFile(problem ? null : chosen)
    if (problem) event.target.value = ''
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
        <Link to={back} className="btn">
          {t('myAccount.back')}
        </Link>
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
          <label className="form-field">
            <span>{t('myAccount.choosePhoto')}</span>
            <input type="file" accept={PHOTO_TYPES.join(',')} onChange={choose} data-testid="profile-photo-input" />
            <small className="muted">{t('myAccount.photoHint')}</small>
            {errors.photo && (
              <small className="field-error" data-testid="profile-photo-error">
                {t(errors.photo)}
              </small>
            )}
          </label>
          <div className="muted small">
            <div>{loaded.email}</div>
            <div>{t(`users.roles.${loaded.role}`)}</div>
          </div>
        </div>
        <DetailsFields form={form} errors={errors} onChange={(patch) => setForm({ ...form, ...patch })} />
        {failure && (
          <div className="alert alert-error form-wide" role="alert" data-testid="profile-error">
            {userErrorText(failure, t, exists)}
          </div>
        )}
        <div className="actions form-wide">
          <button type="submit" className="btn btn-primary" disabled={busy} data-testid="profile-submit">
            {busy ? t('myAccount.saving') : t('myAccount.save')}
          </button>
        </div>
      </form>
    </div>
  )
}
