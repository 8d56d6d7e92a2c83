import { describe, expect, it } from 'vitest'
import { resolveBrand } from '../../lib/brand'
import { authArt } from './authArt'

const LOGO = '/api/group/7/brand/horizontalLogo?v=abc'
const BANNER = '/api/group/7/brand/loginBanner?v=def'

describe('authArt', () => {
  it('draws the default artwork for the default brand (no group)', () => {
    expect(authArt(resolveBrand(null))).toEqual({ logo: null, banner: null })
  })

  it("shows the brand's own logo and banner (the group's or an ancestor's, as public data resolved them)", () => {
    const brand = resolveBrand({ horizontalLogo: LOGO, loginBanner: BANNER } as never)
    expect(authArt(brand)).toEqual({ logo: LOGO, banner: BANNER })
  })

  it('keeps each image on its own: a logo without a banner draws the banner artwork', () => {
    expect(authArt({ horizontalLogo: LOGO, loginBanner: null })).toEqual({ logo: LOGO, banner: null })
    expect(authArt({ horizontalLogo: null, loginBanner: BANNER })).toEqual({ logo: null, banner: BANNER })
  })

  it('falls back to the artwork for an address that failed to load, and tries a new address again', () => {
    const failed = new Set([LOGO])
    expect(authArt({ horizontalLogo: LOGO, loginBanner: BANNER }, failed)).toEqual({ logo: null, banner: BANNER })
    const saved = '/api/group/7/brand/horizontalLogo?v=new'
    expect(authArt({ horizontalLogo: saved, loginBanner: BANNER }, failed).logo).toBe(saved)
  })

  it('treats blank addresses as no image', () => {
    expect(authArt({ horizontalLogo: '  ', loginBanner: '' })).toEqual({ logo: null, banner: null })
  })
})
