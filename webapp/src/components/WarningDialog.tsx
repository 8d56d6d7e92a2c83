import { useEffect, useRef } from 'react'
import { useTranslation } from 'react-i18next'
import { shownErrorText } from './errorText'
import { api } from '../store/api'
import { clearSession } from '../store/authSlice'
import { useAppDispatch, useAppSelector } from '../store/hooks'
import { dismissWarning } from '../store/uiSlice'

/** The 'Warning' dialog shown after a 401: OK ends the session (the guards then go to /login). */
export default function WarningDialog() {
  const { t, i18n } = useTranslation()
  const warning = useAppSelector((s) => s.ui.warning)
  const dispatch = useAppDispatch()
  const button = useRef<HTMLButtonElement>(null)

  useEffect(() => {
    if (warning) button.current?.focus()
  }, [warning])

  if (!warning) return null
  const acknowledge = () => {
    dispatch(dismissWarning())
    dispatch(clearSession('expired'))
    dispatch(api.util.resetApiState())
  }
  return (
    <div className="dialog-backdrop">
      <div
        className="dialog"
        role="alertdialog"
        aria-modal="true"
        aria-labelledby="warning-title"
        aria-describedby="warning-text"
        data-testid="warning-dialog"
      >
        <h2 id="warning-title">{t('errors.warning')}</h2>
        <p id="warning-text">{shownErrorText(warning, t, (k) => i18n.exists(k))}</p>
        <div className="dialog-actions">
          <button ref={button} type="button" className="btn btn-primary" onClick={acknowledge} data-testid="warning-ok">
            {t('app.ok')}
          </button>
        </div>
      </div>
    </div>
  )
}
