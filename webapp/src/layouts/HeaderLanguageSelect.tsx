import type { HTMLAttributes } from 'react'
import { useTranslation } from 'react-i18next'
import MenuItem from '@mui/material/MenuItem'
import Select from '@mui/material/Select'
import useMediaQuery from '@mui/material/useMediaQuery'
import { LOCALES, setLocale, type Locale } from '../i18n'

/**
 * The signed-in frame's language choice, an MUI select like the rest of the app (the public site and the sign-in
 * pages keep the light native one, components/LanguageSwitch). Its name is "Idioma"/"Language"; on a phone it
 * shows the short names ("PT"), the menu the full ones.
 */
export default function HeaderLanguageSelect() {
  const { t, i18n } = useTranslation()
  const narrow = useMediaQuery('(max-width: 600px)')
  const display = { 'aria-label': t('app.language'), 'data-testid': 'language-switch' } as HTMLAttributes<HTMLDivElement>
  return (
    <Select
      size="small"
      value={i18n.language}
      onChange={(e) => setLocale(e.target.value as Locale)}
      renderValue={(locale) => t(narrow ? `app.languagesShort.${locale}` : `app.languages.${locale}`)}
      SelectDisplayProps={display}
      sx={{
        flexShrink: 0,
        bgcolor: 'background.paper',
        color: 'text.primary',
        '& .MuiSelect-select': { py: 0.6 },
      }}
    >
      {LOCALES.map((locale) => (
        <MenuItem key={locale} value={locale} data-testid={`language-option-${locale}`}>
          {t(`app.languages.${locale}`)}
        </MenuItem>
      ))}
    </Select>
  )
}
