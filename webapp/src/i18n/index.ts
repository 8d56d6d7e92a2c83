import i18n from 'i18next'
import { initReactI18next } from 'react-i18next'
import ptBR from './pt-BR'
import enUS from './en-US'

export const LOCALES = ['pt-BR', 'en-US'] as const
export type Locale = (typeof LOCALES)[number]
export const DEFAULT_LOCALE: Locale = 'pt-BR'
export const LOCALE_STORAGE_KEY = 'locale'

export function storedLocale(): Locale {
  try {
    const value = localStorage.getItem(LOCALE_STORAGE_KEY)
    return (LOCALES as readonly string[]).includes(value ?? '') ? (value as Locale) : DEFAULT_LOCALE
  } catch {
    return DEFAULT_LOCALE
  }
}

export function setLocale(locale: Locale): void {
  try {
    localStorage.setItem(LOCALE_STORAGE_KEY, locale)
  } catch {
    // storage unavailable: the choice lasts for this page only
  }
  void i18n.changeLanguage(locale)
}

i18n.on('languageChanged', (lng) => {
  if (typeof document !== 'undefined') document.documentElement.lang = lng
})

void i18n.use(initReactI18next).init({
  resources: {
    'pt-BR': { translation: ptBR },
    'en-US': { translation: enUS },
  },
  lng: storedLocale(),
  fallbackLng: 'en-US',
  supportedLngs: LOCALES as unknown as string[],
  interpolation: { escapeValue: false },
  returnNull: false,
})

export default i18n
