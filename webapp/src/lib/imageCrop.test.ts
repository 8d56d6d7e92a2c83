import { describe, expect, it } from 'vitest'
import { IMAGE_SIZES, type BrandImageKind } from './brandRules'
import { coverArea, encodeImage, enlarges, fitZoom, placement, renderCrop, resizeSteps, usableArea, type Area, type Size } from './imageCrop'

const TARGETS = Object.entries(IMAGE_SIZES).map(([kind, [width, height]]) => ({ kind: kind as BrandImageKind, width, height }))

/** Image sizes from tiny to a phone photo, wide, tall and square (a fixed spread, not random). */
function imageSizes(): Size[] {
  const sides = [1, 7, 68, 199, 208, 500, 709, 1134, 1920, 4032]
  return sides.flatMap((width) => sides.map((height) => ({ width, height })))
}

/** Canvases that record what is drawn on them (jsdom has no 2D canvas). */
function recordingCanvases() {
  const made: { width: number; height: number; draws: number[][]; sources: unknown[] }[] = []
  const make = ({ width, height }: Size) => {
    const canvas = { width, height, draws: [] as number[][], sources: [] as unknown[] }
    const ctx = {
      imageSmoothingEnabled: false,
      imageSmoothingQuality: 'low',
      drawImage: (source: unknown, ...args: number[]) => {
        canvas.draws.push(args)
        canvas.sources.push(source)
      },
    }
    made.push(canvas)
    return Object.assign(canvas, { getContext: () => ctx }) as unknown as HTMLCanvasElement
  }
  return { made, make }
}

describe('the crop frame', () => {
  it('at zoom 1 is the largest centred part of the image with the target aspect, inside it', () => {
    for (const target of TARGETS)
      for (const image of imageSizes()) {
        const area = coverArea(image, target)
        expect(area.width / area.height).toBeCloseTo(target.width / target.height, 9)
        expect(area.x).toBeGreaterThanOrEqual(-1e-9)
        expect(area.y).toBeGreaterThanOrEqual(-1e-9)
        expect(area.x + area.width).toBeLessThanOrEqual(image.width + 1e-9)
        expect(area.y + area.height).toBeLessThanOrEqual(image.height + 1e-9)
        // Largest: it spans the whole image one way, and it is centred.
        expect(Math.max(area.width / image.width, area.height / image.height)).toBeCloseTo(1, 9)
        expect(area.x * 2 + area.width).toBeCloseTo(image.width, 9)
        expect(area.y * 2 + area.height).toBeCloseTo(image.height, 9)
      }
  })

  it('zoomed out to fitZoom holds the whole image', () => {
    for (const target of TARGETS)
      for (const image of imageSizes()) {
        const zoom = fitZoom(image, target)
        const cover = coverArea(image, target)
        expect(zoom).toBeGreaterThan(0)
        expect(zoom).toBeLessThanOrEqual(1)
        // At zoom z the frame spans cover / z of the image's pixels.
        expect(cover.width / zoom).toBeGreaterThanOrEqual(image.width - 1e-6)
        expect(cover.height / zoom).toBeGreaterThanOrEqual(image.height - 1e-6)
      }
  })

  it('places the part of the image inside the frame, leaving the rest of the output empty', () => {
    const image = { width: 400, height: 200 }
    const out = { width: 208, height: 68 }
    const inside = placement({ x: 10, y: 20, width: 208, height: 68 }, image, out)
    expect(inside).toEqual({ source: { x: 10, y: 20, width: 208, height: 68 }, dest: { x: 0, y: 0, width: 208, height: 68 } })
    // Zoomed out: a frame twice as wide as the image, centred, draws it in the output's middle half.
    const wide = placement({ x: -200, y: 0, width: 800, height: 200 }, image, { width: 400, height: 100 })
    expect(wide).toEqual({ source: { x: 0, y: 0, width: 400, height: 200 }, dest: { x: 100, y: 0, width: 200, height: 100 } })
    expect(placement({ x: 500, y: 0, width: 100, height: 100 }, image, out)).toBeNull()
  })

  it('takes only a measured area: none from a frame measured while it had no size', () => {
    expect(usableArea({ x: 200, y: 319, width: 800, height: 262 })).toBe(true)
    expect(usableArea({ x: -40, y: -10, width: 300, height: 98 })).toBe(true) // zoomed out: past the image
    for (const broken of [
      { x: Number.NaN, y: Number.NaN, width: Number.NaN, height: Number.NaN },
      { x: 0, y: 0, width: Number.POSITIVE_INFINITY, height: 68 },
      { x: 0, y: 0, width: 0, height: 0 },
      { x: 10, y: Number.NaN, width: 208, height: 68 },
    ])
      expect(usableArea(broken)).toBe(false)
  })

  it('tells when the chosen part has fewer pixels than the result', () => {
    expect(enlarges({ x: 0, y: 0, width: 100, height: 32.7 }, { width: 208, height: 68 })).toBe(true)
    expect(enlarges({ x: 0, y: 0, width: 207.8, height: 67.9 }, { width: 208, height: 68 })).toBe(false)
    expect(enlarges({ x: 0, y: 0, width: 4000, height: 1307 }, { width: 208, height: 68 })).toBe(false)
  })
})

describe('the resize', () => {
  it('ends at exactly the target and never shrinks more than twice in one step', () => {
    for (const target of TARGETS)
      for (const image of imageSizes()) {
        const area = coverArea(image, target)
        const steps = resizeSteps(area, target)
        expect(steps.at(-1)).toEqual({ width: target.width, height: target.height })
        let previous: Size = area
        for (const step of steps) {
          if (step !== steps.at(-1)) expect(previous.width / step.width).toBeLessThanOrEqual(2.01)
          expect(Number.isInteger(step.width) && Number.isInteger(step.height)).toBe(true)
          previous = step
        }
        // The last step shrinks at most twice too (or enlarges, for a small image).
        const beforeLast = steps.length > 1 ? steps.at(-2)! : area
        expect(beforeLast.width / target.width).toBeLessThanOrEqual(2.01)
      }
  })

  it('draws the framed part on a canvas of exactly the target size', () => {
    for (const { width, height } of TARGETS) {
      const image = { width: 4032, height: 3024 }
      const scale = Math.min(3900 / width, 2900 / height) // a frame well inside the photo, many times the target
      const area: Area = { x: 100, y: 50, width: width * scale, height: height * scale }
      const { made, make } = recordingCanvases()
      const source = { kind: 'photo' }
      const result = renderCrop(source as unknown as CanvasImageSource, image, area, { width, height }, make)
      expect([result.width, result.height]).toEqual([width, height])
      // The photo is read once, over exactly the frame; every later step draws the whole canvas before it.
      expect(made[0].sources).toEqual([source])
      const read = made[0].draws[0]
      for (const [i, value] of [area.x, area.y, area.width, area.height].entries()) expect(read[i]).toBeCloseTo(value, 6)
      for (let i = 1; i < made.length; i += 1) {
        expect(made[i].sources[0]).toBe(made[i - 1])
        expect(made[i].draws[0]).toEqual([0, 0, made[i - 1].width, made[i - 1].height, 0, 0, made[i].width, made[i].height])
      }
    }
  })

  it('draws a small image enlarged in one step', () => {
    const { made, make } = recordingCanvases()
    const result = renderCrop({} as CanvasImageSource, { width: 50, height: 50 }, { x: 0, y: 17.6, width: 50, height: 16.3 }, { width: 208, height: 68 }, make)
    expect(made).toHaveLength(1)
    expect([result.width, result.height]).toEqual([208, 68])
  })
})

describe('the file sent', () => {
  function canvasAnswering(sizes: Record<string, number | null>): HTMLCanvasElement {
    return {
      toBlob: (done: (blob: Blob | null) => void, type: string) => {
        const size = sizes[type]
        // A browser that cannot write the type writes PNG.
        done(size === null ? new Blob([new Uint8Array(sizes['image/png'] ?? 1)], { type: 'image/png' }) : new Blob([new Uint8Array(size)], { type }))
      },
    } as unknown as HTMLCanvasElement
  }

  it('is a PNG within the limit, else WebP, else JPEG', async () => {
    expect((await encodeImage(canvasAnswering({ 'image/png': 900, 'image/webp': 300, 'image/jpeg': 200 }), 1000)).type).toBe('image/png')
    expect((await encodeImage(canvasAnswering({ 'image/png': 3000, 'image/webp': 800, 'image/jpeg': 200 }), 1000)).type).toBe('image/webp')
    expect((await encodeImage(canvasAnswering({ 'image/png': 3000, 'image/webp': null, 'image/jpeg': 200 }), 1000)).type).toBe('image/jpeg')
  })
})
