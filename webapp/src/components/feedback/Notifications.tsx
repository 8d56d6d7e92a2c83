import { useEffect } from 'react'
import { useTranslation } from 'react-i18next'
import { useAppDispatch, useAppSelector } from '../../store/hooks'
import { notificationDismissed, type Notification } from '../../store/uiSlice'
import { NOTIFY_TIMEOUT_MS } from './hooks'
import './feedback.css'

function Toast({ item, timeout }: { item: Notification; timeout: number }) {
  const { t } = useTranslation()
  const dispatch = useAppDispatch()
  useEffect(() => {
    const timer = setTimeout(() => dispatch(notificationDismissed(item.id)), timeout)
    return () => clearTimeout(timer)
  }, [dispatch, item.id, timeout])
  return (
    <div
      className={`fb-toast fb-toast-${item.type}`}
      role={item.type === 'negative' || item.type === 'warning' ? 'alert' : 'status'}
      data-testid={`notification-${item.type}`}
    >
      <span className="fb-toast-message">{item.message}</span>
      <button
        type="button"
        className="fb-toast-close"
        aria-label={t('frame.feedback.close')}
        onClick={() => dispatch(notificationDismissed(item.id))}
      >
        ×
      </button>
    </div>
  )
}

/** The toasts asked for with useNotify() (mount once, in App). */
export default function Notifications({ timeout = NOTIFY_TIMEOUT_MS }: { timeout?: number }) {
  const items = useAppSelector((s) => s.ui.notifications)
  if (items.length === 0) return null
  return (
    <div className="fb-toasts" aria-live="polite">
      {items.map((item) => (
        <Toast key={item.id} item={item} timeout={timeout} />
      ))}
    </div>
  )
}
