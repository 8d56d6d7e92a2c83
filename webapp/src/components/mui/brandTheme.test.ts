import { describe, expect, it } from 'vitest'
import { DEFAULT_BRAND } from '../../lib/brand'
import { appLanguage, brandTheme } from './brandTheme'

describe('brandTheme', () => {
  it("takes the brand's colours with the contrast text of the CSS variables", () => {
    const dark = brandTheme({ primaryColor: '#034507', secondaryColor: '#F5D90A' }, 'pt-BR')
    expect(dark.palette.primary.main).toBe('#034507')
    expect(dark.palette.primary.contrastText).toBe('#FFFFFF')
    expect(dark.palette.secondary.main).toBe('#F5D90A')
    expect(dark.palette.secondary.contrastText).toBe('#000000')
  })

  it("speaks the user's language in MUI core, the Data Grid and the Date Pickers", () => {
    const pt = brandTheme(DEFAULT_BRAND, 'pt-BR')
    const en = brandTheme(DEFAULT_BRAND, 'en-US')
    const grid = (theme: typeof pt) =>
      (theme.components as Record<string, { defaultProps?: { localeText?: Record<string, unknown> } }>).MuiDataGrid?.defaultProps
        ?.localeText
    const pickers = (theme: typeof pt) =>
      (theme.components as Record<string, { defaultProps?: { localeText?: Record<string, unknown> } }>).MuiLocalizationProvider
        ?.defaultProps?.localeText
    expect(grid(pt)?.noRowsLabel).toBe('Nenhuma linha')
    expect(grid(en)?.noRowsLabel).toBe('No rows')
    expect(pickers(pt)?.cancelButtonLabel).toBe('Cancelar')
    expect(pickers(en)?.cancelButtonLabel).toBe('Cancel')
    const pagination = (theme: typeof pt) =>
      (theme.components as Record<string, { defaultProps?: { labelRowsPerPage?: string } }>).MuiTablePagination?.defaultProps
        ?.labelRowsPerPage
    expect(pagination(pt)).toBe('Linhas por página:')
    expect(pagination(en)).toBeUndefined() // English is MUI's own default
  })

  it("gives status colours and breakpoints from the specification, whatever the brand", () => {
    const theme = brandTheme({ primaryColor: '#123456', secondaryColor: '#654321' }, 'en-US')
    expect(theme.palette.success.main).toBe('#39D26D')
    expect(theme.palette.error.main).toBe('#FF5630')
    expect(theme.palette.info.main).toBe('#31CCEC')
    expect(theme.palette.warning.main).toBe('#EDBD43')
    expect(theme.breakpoints.values).toEqual({ xs: 0, sm: 600, md: 1024, lg: 1440, xl: 1920 })
    expect(theme.breakpoints.up('md')).toBe('@media (min-width:1024px)')
  })

  it('reads any other language as pt-BR', () => {
    expect(appLanguage('en-US')).toBe('en-US')
    expect(appLanguage('pt-BR')).toBe('pt-BR')
    expect(appLanguage('fr')).toBe('pt-BR')
    expect(appLanguage(undefined)).toBe('pt-BR')
  })
})
