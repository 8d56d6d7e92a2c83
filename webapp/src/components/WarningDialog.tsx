import { lazy, Suspense } from 'react'
import { useTranslation } from 'react-i18next'
import { shownErrorText } from './errorText'
import { api } from '../store/api'
import { clearSession } from '../store/authSlice'
import { useAppDispatch, useAppSelector } from '../store/hooks'
import { dismissWarning } from '../store/uiSlice'

// MUI's dialog in its own chunk: App mounts this on every page, the public site's included.
const WarningDialogView = lazy(() => import('./WarningDialogView'))

/** The 'Warning' dialog shown after a 401: OK ends the session (the guards then go to /login). */
export default function WarningDialog() {
  const { t, i18n } = useTranslation()
  const warning = useAppSelector((s) => s.ui.warning)
  const dispatch = useAppDispatch()
  if (!warning) return null
  const acknowledge = () => {
    dispatch(dismissWarning())
    dispatch(clearSession('expired'))
    dispatch(api.util.resetApiState())
  }
  return (
    <Suspense fallback={null}>
      <WarningDialogView text={shownErrorText(warning, t, (k) => i18n.exists(k))} onOk={acknowledge} />
    </Suspense>
  )
}
