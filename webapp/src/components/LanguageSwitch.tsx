import { useSyncExternalStore } from 'react'
import { useTranslation } from 'react-i18next'
import { LOCALES, setLocale, type Locale } from '../i18n'

// Under 600 px the full names ("Português (Brasil)") do not fit beside the menu button.
const NARROW = '(max-width: 600px)'

function subscribeNarrow(onChange: () => void): () => void {
  if (typeof window === 'undefined' || !window.matchMedia) return () => {}
  const query = window.matchMedia(NARROW)
  query.addEventListener('change', onChange)
  return () => query.removeEventListener('change', onChange)
}

function isNarrow(): boolean {
  return typeof window !== 'undefined' && !!window.matchMedia && window.matchMedia(NARROW).matches
}

export default function LanguageSwitch() {
  const { t, i18n } = useTranslation()
  const narrow = useSyncExternalStore(subscribeNarrow, isNarrow, () => false)
  return (
    <label className="language-switch">
      <span className="sr-only">{t('app.language')}</span>
      <select
        data-testid="language-switch"
        aria-label={t('app.language')}
        value={i18n.language}
        onChange={(e) => setLocale(e.target.value as Locale)}
      >
        {LOCALES.map((locale) => (
          <option key={locale} value={locale} title={t(`app.languages.${locale}`)}>
            {t(narrow ? `app.languagesShort.${locale}` : `app.languages.${locale}`)}
          </option>
        ))}
      </select>
    </label>
  )
}
