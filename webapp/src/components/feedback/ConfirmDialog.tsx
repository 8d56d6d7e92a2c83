import { useEffect, useRef } from 'react'
import { useTranslation } from 'react-i18next'
import { useAppDispatch, useAppSelector } from '../../store/hooks'
import { confirmAnswered } from '../../store/uiSlice'
import { settleConfirm } from './hooks'
import './feedback.css'

/**
 * The dialog asked for with useConfirm() (mount once, in App). Persistent: neither the
 * backdrop nor Escape closes it; only its buttons answer.
 */
export default function ConfirmDialog() {
  const { t } = useTranslation()
  const dispatch = useAppDispatch()
  const request = useAppSelector((s) => s.ui.confirms[0])
  const first = useRef<HTMLButtonElement>(null)

  useEffect(() => {
    if (request) first.current?.focus()
  }, [request])

  if (!request) return null
  const answer = (value: boolean) => {
    dispatch(confirmAnswered(request.id))
    settleConfirm(request.id, value)
  }
  return (
    <div className="dialog-backdrop" data-testid="confirm-backdrop">
      <div
        className="dialog fb-confirm"
        role="alertdialog"
        aria-modal="true"
        aria-labelledby="confirm-title"
        aria-describedby="confirm-text"
        data-testid="confirm-dialog"
        onKeyDown={(e) => {
          if (e.key === 'Escape') e.stopPropagation()
        }}
      >
        <h2 id="confirm-title">{request.title ?? t('frame.feedback.confirmTitle')}</h2>
        <p id="confirm-text">{request.message ?? t('frame.feedback.confirmText')}</p>
        <div className="dialog-actions">
          {request.variant === 'ok' ? (
            <button ref={first} type="button" className="btn btn-primary" onClick={() => answer(true)} data-testid="confirm-ok">
              {t('frame.feedback.ok')}
            </button>
          ) : (
            <>
              <button ref={first} type="button" className="btn" onClick={() => answer(false)} data-testid="confirm-no">
                {t('frame.feedback.no')}
              </button>
              <button type="button" className="btn btn-primary" onClick={() => answer(true)} data-testid="confirm-yes">
                {t('frame.feedback.yes')}
              </button>
            </>
          )}
        </div>
      </div>
    </div>
  )
}
