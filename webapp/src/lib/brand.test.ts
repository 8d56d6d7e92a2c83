import { describe, expect, it } from 'vitest'
import { applyBrand, capitalizeWords, DEFAULT_BRAND, resolveBrand, textColorOn, weightedLuminance } from './brand'

describe('weighted luminance and text colour on a background', () => {
  it.each([
    ['#000000', 0, '#FFFFFF'],
    ['#FFFFFF', 1, '#000000'],
    ['#034507', (0.299 * 3 + 0.587 * 69 + 0.114 * 7) / 255, '#FFFFFF'],
    ['#D5EFD4', (0.299 * 213 + 0.587 * 239 + 0.114 * 212) / 255, '#000000'],
    ['#2BB32A', (0.299 * 43 + 0.587 * 179 + 0.114 * 42) / 255, '#FFFFFF'],
    ['#fff', 1, '#000000'],
    ['#FF0000', 0.299, '#FFFFFF'],
    ['#00FF00', 0.587, '#000000'],
  ])('%s', (color, luminance, text) => {
    expect(weightedLuminance(color)).toBeCloseTo(luminance, 6)
    expect(textColorOn(color)).toBe(text)
  })

  it('exactly 0.5 is not above 0.5, so the text is white', () => {
    // 127.5 grey is not representable; #808080 is just above, #7F7F7F just below.
    expect(textColorOn('#808080')).toBe('#000000')
    expect(textColorOn('#7F7F7F')).toBe('#FFFFFF')
  })
})

describe('brand', () => {
  it('capitalises each word of the title', () => {
    expect(capitalizeWords('consultas bemtevi  brasil')).toBe('Consultas Bemtevi  Brasil')
    expect(capitalizeWords('CPF já')).toBe('CPF Já')
  })

  it('uses the defaults when there is no group', () => {
    const brand = resolveBrand(null)
    expect(brand).toMatchObject({
      appTitle: 'Bemtevi',
      primaryColor: '#034507',
      secondaryColor: '#2BB32A',
      lighterColor: '#D5EFD4',
      iconogram: DEFAULT_BRAND.iconogram,
    })
  })

  it('applies CSS variables, title and favicon', () => {
    const brand = resolveBrand({
      id: '1',
      uniqueKey: 'k',
      name: 'Acme',
      appTitle: 'acme consultas',
      domainUrl: 'acme.example',
      primaryColor: '#FFEE00',
      secondaryColor: null,
      lighterColor: 'not-a-colour',
      horizontalLogo: null,
      iconogram: '/media/acme-icon.png',
      loginBanner: null,
      advancedQueryBanner: null,
    })
    applyBrand(brand)
    const style = document.documentElement.style
    expect(style.getPropertyValue('--primary')).toBe('#FFEE00')
    expect(style.getPropertyValue('--secondary')).toBe('#2BB32A')
    expect(style.getPropertyValue('--lighter')).toBe('#D5EFD4')
    expect(style.getPropertyValue('--on-primary')).toBe('#000000')
    expect(document.title).toBe('Acme Consultas')
    expect(document.querySelector('link[rel="icon"]')?.getAttribute('href')).toBe('/media/acme-icon.png')
  })
})
