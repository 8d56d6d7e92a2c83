import { useMemo, type ReactNode } from 'react'
import { useTranslation } from 'react-i18next'
import { ThemeProvider } from '@mui/material/styles'
import { LocalizationProvider } from '@mui/x-date-pickers/LocalizationProvider'
import { AdapterDayjs } from '@mui/x-date-pickers/AdapterDayjs'
import 'dayjs/locale/pt-br'
import 'dayjs/locale/en'
import { useBrand } from '../useBrand'
import { appLanguage, brandTheme, DAYJS_LOCALE } from './brandTheme'

/**
 * MUI for the signed-in and auth layouts: the tenant's theme and the user's language (core, Data
 * Grid, Date Pickers, dayjs). Only those layouts import it, so the library stays out of the public
 * site's chunks.
 */
export default function MuiProvider({ children }: { children: ReactNode }) {
  const { i18n } = useTranslation()
  const { brand } = useBrand()
  const language = appLanguage(i18n.language)
  const { primaryColor, secondaryColor } = brand
  const theme = useMemo(() => brandTheme({ primaryColor, secondaryColor }, language), [primaryColor, secondaryColor, language])
  return (
    <ThemeProvider theme={theme}>
      <LocalizationProvider dateAdapter={AdapterDayjs} adapterLocale={DAYJS_LOCALE[language]}>
        {children}
      </LocalizationProvider>
    </ThemeProvider>
  )
}
