import { fireEvent, render, screen, waitFor } from '@testing-library/react'
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import i18n from '../../i18n'
import type { BrandImageKind } from '../../lib/brandRules'
import { coverArea, renderCrop, type Area, type LoadedImage, type Size } from '../../lib/imageCrop'
import ImageCropDialog, { type ProduceImage } from './ImageCropDialog'

const BRAND = { title: 'Marca Exemplo', primary: '#034507', secondary: '#2BB32A', lighter: '#D5EFD4' }

function source(width: number, height: number): LoadedImage {
  // jsdom decodes no image: the dialog only needs the address and the pixel size.
  return { url: 'blob:chosen', image: {} as CanvasImageSource, width, height }
}

/** Makes the result with the real drawing code on canvases that only keep their size (jsdom has no 2D canvas). */
const producedSizes: Size[] = []
const produceWithSizedCanvases: ProduceImage = async (chosen, area, target) => {
  const make = ({ width, height }: Size) =>
    ({ width, height, getContext: () => ({ drawImage: () => {} }) }) as unknown as HTMLCanvasElement
  const canvas = renderCrop(chosen.image, chosen, area, target, make)
  producedSizes.push({ width: canvas.width, height: canvas.height })
  return new Blob(['png'], { type: 'image/png' })
}

function open(kind: BrandImageKind, chosen: LoadedImage, onApply = vi.fn(async () => true), produce: ProduceImage = produceWithSizedCanvases) {
  const onCancel = vi.fn()
  render(<ImageCropDialog kind={kind} source={chosen} brand={BRAND} onCancel={onCancel} onApply={onApply} produce={produce} />)
  return { onApply, onCancel }
}

describe('the crop dialog', () => {
  beforeEach(async () => {
    producedSizes.length = 0
    await i18n.changeLanguage('pt-BR')
  })
  afterEach(async () => {
    await i18n.changeLanguage('pt-BR')
  })

  it('sends the framed part at exactly the image kind’s size', async () => {
    const chosen = source(1200, 900)
    const { onApply, onCancel } = open('horizontalLogo', chosen)
    const dialog = await screen.findByTestId('crop-dialog')
    expect(dialog).toHaveTextContent('Ajustar imagem: Logo horizontal')
    expect(dialog).toHaveTextContent('Tamanho real (208x68 px)')
    expect(dialog).toHaveTextContent('Na barra superior do sistema')
    // The preview canvas has the real size, in pixels and on screen.
    const preview = screen.getByTestId('crop-preview')
    expect([preview.getAttribute('width'), preview.getAttribute('height')]).toEqual(['208', '68'])
    expect(preview).toHaveStyle({ width: '208px', height: '68px' })
    expect(screen.queryByTestId('crop-enlarged')).toBeNull()

    fireEvent.click(screen.getByTestId('crop-apply'))
    await waitFor(() => expect(onApply).toHaveBeenCalledTimes(1))
    expect(producedSizes).toEqual([{ width: 208, height: 68 }])
    expect((onApply.mock.calls[0] as unknown as [Blob])[0].type).toBe('image/png')
    expect(onCancel).not.toHaveBeenCalled()
  })

  it('starts from the largest centred frame of the target’s aspect', async () => {
    const produce = vi.fn<ProduceImage>(async () => new Blob(['x'], { type: 'image/png' }))
    const chosen = source(300, 2000)
    open('advancedQueryBanner', chosen, vi.fn(async () => true), produce)
    fireEvent.click(await screen.findByTestId('crop-apply'))
    await waitFor(() => expect(produce).toHaveBeenCalledTimes(1))
    const [given, area, target] = produce.mock.calls[0] as [LoadedImage, Area, Size]
    expect(given).toBe(chosen)
    expect(target).toEqual({ width: 200, height: 1134 })
    expect(area).toEqual(coverArea(chosen, target))
    expect(screen.getByTestId('crop-source')).toHaveTextContent('300x2000')
  })

  it('warns that a small image will be enlarged, and speaks English too', async () => {
    await i18n.changeLanguage('en-US')
    open('iconogram', source(120, 90))
    expect(await screen.findByTestId('crop-enlarged')).toHaveTextContent('smaller than 500x500 pixels')
    expect(screen.getByTestId('crop-dialog')).toHaveTextContent('Adjust image: Icon')
    expect(screen.getByTestId('crop-apply')).toHaveTextContent('Apply and send (500x500)')
    fireEvent.click(screen.getByTestId('crop-apply'))
    await waitFor(() => expect(producedSizes).toEqual([{ width: 500, height: 500 }]))
  })

  it('stays open when the API refuses, and says so when the image cannot be made', async () => {
    const refused = vi.fn(async () => false)
    open('loginBanner', source(2000, 2000), refused)
    fireEvent.click(await screen.findByTestId('crop-apply'))
    await waitFor(() => expect(refused).toHaveBeenCalledTimes(1))
    await waitFor(() => expect(screen.getByTestId('crop-apply')).toBeEnabled())
    expect(screen.getByTestId('crop-dialog')).toBeInTheDocument()
    expect(producedSizes).toEqual([{ width: 708, height: 896 }])
  })

  it('shows a failure to make the image and lets the user cancel', async () => {
    const broken = vi.fn<ProduceImage>(async () => {
      throw new Error('no canvas')
    })
    const { onApply, onCancel } = open('horizontalLogo', source(600, 600), vi.fn(async () => true), broken)
    fireEvent.click(await screen.findByTestId('crop-apply'))
    expect(await screen.findByTestId('crop-failed')).toHaveTextContent('Não foi possível gerar a imagem')
    expect(onApply).not.toHaveBeenCalled()
    fireEvent.click(screen.getByTestId('crop-cancel'))
    expect(onCancel).toHaveBeenCalledTimes(1)
  })
})
