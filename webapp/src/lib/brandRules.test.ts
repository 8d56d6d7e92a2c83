import { describe, expect, it } from 'vitest'
import { allowedQueryTypes, allowedToggles, colourError, imageSizeError, normaliseColour, uploadsAsIs } from './brandRules'

describe('brand form rules', () => {
  it('accepts #rgb and #rrggbb colours and empty (falls back), refuses the rest', () => {
    expect(colourError('#fff')).toBeNull()
    expect(colourError('#A1B2C3')).toBeNull()
    expect(colourError('')).toBeNull()
    expect(colourError('blue')).toBe('brand.errors.colour')
    expect(colourError('#12345')).toBe('brand.errors.colour')
    expect(normaliseColour('#a1b')).toBe('#AA11BB')
  })

  it('names the expected size when an image has other pixels', () => {
    expect(imageSizeError('horizontalLogo', 208, 68)).toBeNull()
    expect(imageSizeError('loginBanner', 708, 895)).toEqual({ key: 'brand.errors.size', width: 708, height: 896 })
    expect(imageSizeError('advancedQueryBanner', 200, 1134)).toBeNull()
    expect(imageSizeError('iconogram', 512, 512)).toEqual({ key: 'brand.errors.size', width: 500, height: 500 })
  })

  it('a child never gets a toggle or query type its parent lacks', () => {
    expect(allowedToggles({ allowCreatedWhiteLabel: false, allowUploadingManualQueries: true })).toEqual({
      allowCreatedWhiteLabel: false,
      allowUploadingManualQueries: true,
      allowDeletedAndCancelled: false,
    })
    expect(allowedQueryTypes(['cpf-complete', 'cnpj-complete'], ['cpf-complete'])).toEqual(['cpf-complete'])
    expect(allowedQueryTypes(['cpf-complete', 'cnpj-complete'], null)).toEqual(['cpf-complete', 'cnpj-complete'])
  })
})

describe('which chosen files go to the API as they are', () => {
  it('only a PNG, JPEG or WebP of the exact size within 2 MB; any other image is cropped first', () => {
    const png = { type: 'image/png', size: 20_000 }
    expect(uploadsAsIs('horizontalLogo', png, 208, 68)).toBe(true)
    expect(uploadsAsIs('iconogram', { type: 'image/webp', size: 1000 }, 500, 500)).toBe(true)
    expect(uploadsAsIs('horizontalLogo', png, 416, 136)).toBe(false) // same aspect, other pixels
    expect(uploadsAsIs('horizontalLogo', { type: 'image/svg+xml', size: 900 }, 208, 68)).toBe(false) // the API reads no SVG
    expect(uploadsAsIs('horizontalLogo', { type: 'image/gif', size: 900 }, 208, 68)).toBe(false)
    expect(uploadsAsIs('loginBanner', { type: 'image/png', size: 3 * 1024 * 1024 }, 708, 896)).toBe(false) // re-encoded smaller
  })
})
