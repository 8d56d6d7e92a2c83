import type { ReactNode } from 'react'
import { useTranslation } from 'react-i18next'
import { ChartsLocalizationProvider } from '@mui/x-charts/ChartsLocalizationProvider'
import { enUSLocaleText, ptBRLocaleText } from '@mui/x-charts/locales'
import { appLanguage } from './mui/brandTheme'

/**
 * MUI X Charts' own texts (overlays, toolbar) in the user's language. Only chart screens import it,
 * so the charts' locale lands in their chunk, not in MuiProvider's (which every auth screen loads).
 */
export default function ChartsLanguage({ children }: { children: ReactNode }) {
  const { i18n } = useTranslation()
  const localeText = appLanguage(i18n.language) === 'en-US' ? enUSLocaleText : ptBRLocaleText
  return <ChartsLocalizationProvider localeText={localeText}>{children}</ChartsLocalizationProvider>
}
