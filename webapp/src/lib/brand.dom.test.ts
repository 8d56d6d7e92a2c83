import { describe, expect, it } from 'vitest'
import { applyBrand, capitalizeWords, DEFAULT_BRAND, initialOf, resolveBrand, textColorOn, weightedLuminance } from './brand'

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

describe('a customer’s white label names the customer only', () => {
  const label = {
    id: '2',
    uniqueKey: 'k2',
    name: 'Marca Exemplo Consultas Ltda',
    appTitle: 'marca exemplo',
    domainUrl: 'marca.example',
    primaryColor: '#8B0000',
    secondaryColor: null,
    lighterColor: null,
    horizontalLogo: null,
    iconogram: null,
    loginBanner: null,
    advancedQueryBanner: null,
    whiteLabel: true,
  }

  it('has no platform title or icon while its data is on its way', () => {
    const loading = resolveBrand(null, true)
    expect(loading.appTitle).toBe('')
    expect(loading.whiteLabel).toBe(true)
    expect(loading.iconogram).not.toBe(DEFAULT_BRAND.iconogram)
    document.title = 'before'
    applyBrand(loading)
    expect(document.title).toBe('before')
  })

  it('shows its initial in its colours as the icon when it has none of its own', () => {
    const brand = resolveBrand(label)
    expect(brand.iconogram.startsWith('data:image/svg+xml,')).toBe(true)
    const svg = decodeURIComponent(brand.iconogram.slice('data:image/svg+xml,'.length))
    expect(svg).toContain('>M</text>')
    expect(svg).toContain('#8B0000')
    expect(initialOf(' marca')).toBe('M')
    expect(resolveBrand({ ...label, iconogram: '/api/group/2/brand/iconogram?v=abc' }).iconogram).toBe('/api/group/2/brand/iconogram?v=abc')
  })

  it('falls back to its name, never to the platform’s title', () => {
    expect(resolveBrand({ ...label, appTitle: null }).appTitle).toBe('Marca Exemplo Consultas Ltda')
    expect(resolveBrand({ ...label, appTitle: null, name: null }).appTitle).toBe('')
    expect(resolveBrand({ ...label, whiteLabel: false, appTitle: null, name: null }).appTitle).toBe(DEFAULT_BRAND.appTitle)
  })

  it('carries its contact data, trimmed, and nothing when it gave none', () => {
    const brand = resolveBrand({ ...label, contactEmail: ' atendimento@marca.com.br ', contactPhone: '', aboutText: null })
    expect(brand).toMatchObject({ contactEmail: 'atendimento@marca.com.br', contactPhone: null, contactAddress: null, aboutText: null })
  })
})
