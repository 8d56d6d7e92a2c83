/**
 * Cropping a brand image to its exact size in the browser: the arithmetic of the crop frame, the
 * zoom and the resize (pure, tested on its own), and the drawing on a canvas.
 *
 * Areas are in the source image's pixels. When zoomed out below 1 the frame may reach past the
 * image: that part of the result stays transparent.
 */

export interface Size {
  width: number
  height: number
}

export interface Area extends Size {
  x: number
  y: number
}

/** The largest part of the image with the target's aspect ratio, centred: the frame at zoom 1. */
export function coverArea(image: Size, target: Size): Area {
  const aspect = target.width / target.height
  const width = Math.min(image.width, image.height * aspect)
  const height = width / aspect
  return { x: (image.width - width) / 2, y: (image.height - height) / 2, width, height }
}

/**
 * Whether an area reported by the crop frame can be cropped: the frame measured while its box had no
 * size (a window resized, a phone turned) reports NaN, which would draw nothing at all.
 */
export function usableArea(area: Area): boolean {
  return [area.x, area.y, area.width, area.height].every(Number.isFinite) && area.width > 0 && area.height > 0
}

/** The zoom at which the whole image fits inside the frame (at most 1: zoom 1 fills the frame). */
export function fitZoom(image: Size, target: Size): number {
  const cover = coverArea(image, target)
  return Math.min(1, cover.width / image.width, cover.height / image.height)
}

/**
 * The part of the image inside `area`, and where it lands on an output of `out` size. Null when
 * the frame holds none of the image.
 */
export function placement(area: Area, image: Size, out: Size): { source: Area; dest: Area } | null {
  const left = Math.max(0, area.x)
  const top = Math.max(0, area.y)
  const right = Math.min(image.width, area.x + area.width)
  const bottom = Math.min(image.height, area.y + area.height)
  if (right <= left || bottom <= top || area.width <= 0 || area.height <= 0) return null
  const sx = out.width / area.width
  const sy = out.height / area.height
  return {
    source: { x: left, y: top, width: right - left, height: bottom - top },
    dest: { x: (left - area.x) * sx, y: (top - area.y) * sy, width: (right - left) * sx, height: (bottom - top) * sy },
  }
}

/**
 * The sizes to draw through, ending at exactly `target`. Shrinking more than twice in one
 * drawImage skips source pixels (a jagged logo), so the size is halved until the last step.
 */
export function resizeSteps(from: Size, target: Size): Size[] {
  const steps: Size[] = []
  let { width, height } = from
  while (width / 2 >= target.width && height / 2 >= target.height && steps.length < 16) {
    width /= 2
    height /= 2
    if (Math.round(width) === target.width && Math.round(height) === target.height) break
    steps.push({ width: Math.round(width), height: Math.round(height) })
  }
  steps.push({ width: target.width, height: target.height })
  return steps
}

/** Whether the chosen part of the image has fewer pixels than the result: it will be enlarged. */
export function enlarges(area: Area, target: Size): boolean {
  return area.width < target.width - 0.5 || area.height < target.height - 0.5
}

type MakeCanvas = (size: Size) => HTMLCanvasElement

const newCanvas: MakeCanvas = ({ width, height }) => {
  const canvas = document.createElement('canvas')
  canvas.width = width
  canvas.height = height
  return canvas
}

function painter(canvas: HTMLCanvasElement): CanvasRenderingContext2D {
  const ctx = canvas.getContext('2d')
  if (!ctx) throw new Error('no 2d canvas')
  ctx.imageSmoothingEnabled = true
  ctx.imageSmoothingQuality = 'high'
  return ctx
}

/** The framed part of the image drawn on a canvas of exactly `target` pixels (transparent where the frame passes the image). */
export function renderCrop(
  image: CanvasImageSource,
  imageSize: Size,
  area: Area,
  target: Size,
  makeCanvas: MakeCanvas = newCanvas,
): HTMLCanvasElement {
  const steps = resizeSteps(area, target)
  let canvas = makeCanvas(steps[0])
  const first = placement(area, imageSize, steps[0])
  if (first) {
    const { source: s, dest: d } = first
    painter(canvas).drawImage(image, s.x, s.y, s.width, s.height, d.x, d.y, d.width, d.height)
  }
  for (const step of steps.slice(1)) {
    const next = makeCanvas(step)
    painter(next).drawImage(canvas, 0, 0, canvas.width, canvas.height, 0, 0, step.width, step.height)
    canvas = next
  }
  return canvas
}

function toBlob(canvas: HTMLCanvasElement, type: string, quality?: number): Promise<Blob | null> {
  return new Promise((resolve) => canvas.toBlob(resolve, type, quality))
}

/**
 * The canvas as a file the API takes: PNG (keeps transparency); a photo whose PNG passes the
 * byte limit goes as WebP, else JPEG, which the API takes as well.
 */
export async function encodeImage(canvas: HTMLCanvasElement, maxBytes: number): Promise<Blob> {
  let last: Blob | null = null
  for (const [type, quality] of [
    ['image/png', undefined],
    ['image/webp', 0.92],
    ['image/jpeg', 0.9],
  ] as const) {
    const blob = await toBlob(canvas, type, quality)
    // A browser that cannot write a type answers PNG instead: not a new try.
    if (!blob || (blob.type && blob.type !== type)) continue
    last = blob
    if (blob.size <= maxBytes) return blob
  }
  if (!last) throw new Error('the canvas could not be encoded')
  return last
}

/** A chosen file, decoded: its address (for the crop frame), the image (for the canvas) and its pixels. */
export interface LoadedImage extends Size {
  url: string
  image: CanvasImageSource
}

/** Decodes a chosen file (any image the browser reads, SVG too); refused when it is not one. */
export function loadImage(file: Blob): Promise<LoadedImage> {
  return new Promise((resolve, reject) => {
    const url = URL.createObjectURL(file)
    const img = new Image()
    img.onload = () => {
      // An SVG without its own width and height has no pixel size to crop from.
      if (img.naturalWidth > 0 && img.naturalHeight > 0)
        resolve({ url, image: img, width: img.naturalWidth, height: img.naturalHeight })
      else {
        URL.revokeObjectURL(url)
        reject(new Error('unreadable'))
      }
    }
    img.onerror = () => {
      URL.revokeObjectURL(url)
      reject(new Error('unreadable'))
    }
    img.src = url
  })
}
