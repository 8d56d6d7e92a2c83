import { useEffect, useState } from 'react'
import { useTranslation } from 'react-i18next'
import { useAppSelector } from '../../store/hooks'
import './feedback.css'

export interface LoadingOverlayProps {
  /** Milliseconds to wait before showing (spec default 0). */
  delay?: number
  /** A custom image instead of the spinner. */
  image?: string
  /** Spinner size in px (spec default 80). */
  size?: number
  /** Text under the spinner; none by default. */
  message?: string
}

/** Full-screen loading overlay, on while any loading group is held (mount once, in App). */
export default function LoadingOverlay({ delay = 0, image, size = 80, message }: LoadingOverlayProps) {
  const { t } = useTranslation()
  const active = useAppSelector((s) => Object.keys(s.ui.loading).length > 0)
  const [late, setLate] = useState(false)

  useEffect(() => {
    if (!active || delay <= 0) return
    const timer = setTimeout(() => setLate(true), delay)
    return () => {
      clearTimeout(timer)
      setLate(false)
    }
  }, [active, delay])

  if (!active || (delay > 0 && !late)) return null
  return (
    <div className="fb-overlay" role="status" aria-live="polite" aria-busy="true" data-testid="loading-overlay">
      {image ? (
        <img src={image} alt="" width={size} height={size} className="fb-overlay-image" />
      ) : (
        <span className="fb-spinner" style={{ width: size, height: size }} aria-hidden="true" />
      )}
      {message ? <p className="fb-overlay-message">{message}</p> : <span className="sr-only">{t('app.loading')}</span>}
    </div>
  )
}
