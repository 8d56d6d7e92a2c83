import { useEffect, useRef } from 'react'
import { useTranslation } from 'react-i18next'
import { useAuthConfigQuery } from '../../store/generated/bemteviApi'

const GIS_SCRIPT = 'https://accounts.google.com/gsi/client'

interface GoogleIdentity {
  accounts: {
    id: {
      initialize: (options: { client_id: string; callback: (answer: { credential: string }) => void }) => void
      renderButton: (parent: HTMLElement, options: Record<string, unknown>) => void
    }
  }
}

function loadScript(): Promise<GoogleIdentity> {
  const win = window as unknown as { google?: GoogleIdentity }
  if (win.google?.accounts) return Promise.resolve(win.google)
  return new Promise((resolve, reject) => {
    const script = document.createElement('script')
    script.src = GIS_SCRIPT
    script.async = true
    script.onload = () => (win.google ? resolve(win.google) : reject(new Error('Google Identity Services missing')))
    script.onerror = () => reject(new Error('Google Identity Services could not load'))
    document.head.appendChild(script)
  })
}

/**
 * "Sign in with Google": shown only when the server has a Google client id; Google Identity
 * Services' script is loaded only then. The ID token it hands back goes to `onCredential`.
 */
export default function GoogleButton({ onCredential }: { onCredential: (credential: string) => void }) {
  const { t, i18n } = useTranslation()
  const { data } = useAuthConfigQuery()
  const clientId = data?.googleClientId ?? null
  const target = useRef<HTMLDivElement>(null)
  const callback = useRef(onCredential)
  useEffect(() => {
    callback.current = onCredential
  }, [onCredential])

  useEffect(() => {
    if (!clientId || !target.current) return
    let cancelled = false
    loadScript()
      .then((google) => {
        if (cancelled || !target.current) return
        google.accounts.id.initialize({ client_id: clientId, callback: (answer) => callback.current(answer.credential) })
        google.accounts.id.renderButton(target.current, { theme: 'outline', size: 'large', text: 'signin_with', locale: i18n.language })
      })
      .catch(() => undefined) // the page keeps the e-mail and password form
    return () => {
      cancelled = true
    }
  }, [clientId, i18n.language])

  if (!clientId) return null
  return (
    <>
      <div className="accounts-divider">{t('accounts.login.or')}</div>
      <div className="accounts-google" ref={target} data-testid="google-signin" aria-label={t('accounts.login.google')} />
    </>
  )
}
