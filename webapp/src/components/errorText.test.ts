import { afterEach, describe, expect, it } from 'vitest'
import i18n from '../i18n'
import { errorText } from './errorText'

const exists = (key: string) => i18n.exists(key)

afterEach(async () => {
  await i18n.changeLanguage('pt-BR')
})

describe('errorText', () => {
  it('translates a refused image by its code, in either language', async () => {
    const refused = {
      status: 422,
      data: { code: 'image_dimensions_too_large', message: 'The image is 13000x13000 pixels: at most 40,000,000 pixels are accepted' },
    }
    await i18n.changeLanguage('pt-BR')
    expect(errorText(refused, i18n.t, exists)).toBe('A imagem tem pixels demais (largura × altura grandes demais)')
    await i18n.changeLanguage('en-US')
    expect(errorText(refused, i18n.t, exists)).toBe('The image has too many pixels (width × height too large)')
    expect(errorText({ status: 422, data: { code: 'invalid_image', message: 'x' } }, i18n.t, exists)).toBe(
      'The file is not a readable PNG, JPEG or WebP image',
    )
  })

  it('names the exact size a brand image must have, from the refusal', async () => {
    const refused = {
      status: 422,
      data: { code: 'image_wrong_size', message: 'The image must be 208x68 pixels (it is 300x100)', expectedWidth: 208, expectedHeight: 68 },
    }
    await i18n.changeLanguage('pt-BR')
    expect(errorText(refused, i18n.t, exists)).toBe('A imagem deve ter exatamente 208x68 pixels')
    await i18n.changeLanguage('en-US')
    expect(errorText(refused, i18n.t, exists)).toBe('The image must be exactly 208x68 pixels')
  })

  it('shows the server message for a code the app does not know', () => {
    expect(errorText({ status: 400, data: { code: 'x_unknown', message: 'Batch query is disabled' } }, i18n.t, exists)).toBe(
      'Batch query is disabled',
    )
  })
})
