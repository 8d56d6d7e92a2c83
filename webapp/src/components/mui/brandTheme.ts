import { createTheme, type Theme } from '@mui/material/styles'
import { enUS as coreEnUS, ptBR as corePtBR } from '@mui/material/locale'
import { enUS as gridEnUS, ptBR as gridPtBR } from '@mui/x-data-grid/locales'
import { enUS as pickersEnUS, ptBR as pickersPtBR } from '@mui/x-date-pickers/locales'
import { textColorOn, type Brand } from '../../lib/brand'

/** The two languages of the app, as i18next names them. */
export type AppLanguage = 'pt-BR' | 'en-US'

/** i18next's language, or pt-BR (the default) for anything else. */
export function appLanguage(language: string | undefined): AppLanguage {
  return language === 'en-US' ? 'en-US' : 'pt-BR'
}

/** dayjs's name of each language (its locale files are imported in MuiProvider). */
export const DAYJS_LOCALE: Record<AppLanguage, string> = { 'pt-BR': 'pt-br', 'en-US': 'en' }

/** The specification's status colours (section 9's theme), the same as the --positive/... CSS variables. */
export const STATUS_COLOURS = { positive: '#39D26D', negative: '#FF5630', info: '#31CCEC', warning: '#EDBD43' } as const

/** The specification's breakpoints: phone below 600, tablet to 1024, desktop 1440, wide 1920. */
export const BREAKPOINTS = { xs: 0, sm: 600, md: 1024, lg: 1440, xl: 1920 } as const

const status = (main: string) => ({ main, contrastText: textColorOn(main) })

/**
 * The MUI theme of a tenant: the brand's primary and secondary colours with the same contrast text
 * as the CSS variables (black on light colours, white on dark ones, by weighted luminance), and the
 * texts of MUI core, the Data Grid and the Date Pickers in the user's language. Status chips and alerts take
 * the specification's colours (success/error/info/warning), whatever the brand.
 */
export function brandTheme(brand: Pick<Brand, 'primaryColor' | 'secondaryColor'>, language: AppLanguage): Theme {
  const pt = language === 'pt-BR'
  return createTheme(
    {
      palette: {
        primary: { main: brand.primaryColor, contrastText: textColorOn(brand.primaryColor) },
        secondary: { main: brand.secondaryColor, contrastText: textColorOn(brand.secondaryColor) },
        success: status(STATUS_COLOURS.positive),
        error: status(STATUS_COLOURS.negative),
        info: status(STATUS_COLOURS.info),
        warning: status(STATUS_COLOURS.warning),
        background: { default: '#f5f7f6' },
      },
      breakpoints: { values: BREAKPOINTS },
      shape: { borderRadius: 8 },
      typography: {
        fontFamily: "system-ui, -apple-system, 'Segoe UI', Roboto, 'Helvetica Neue', Arial, sans-serif",
        button: { textTransform: 'none', fontWeight: 600 },
      },
      components: {
        MuiButton: { defaultProps: { disableElevation: true } },
        MuiTextField: { defaultProps: { size: 'small' } },
      },
    },
    pt ? corePtBR : coreEnUS,
    pt ? gridPtBR : gridEnUS,
    pt ? pickersPtBR : pickersEnUS,
  )
}
