import { useTranslation } from 'react-i18next'
import { LOCALES, setLocale, type Locale } from '../i18n'

export default function LanguageSwitch() {
  const { t, i18n } = useTranslation()
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
          <option key={locale} value={locale}>
            {t(`app.languages.${locale}`)}
          </option>
        ))}
      </select>
    </label>
  )
}
