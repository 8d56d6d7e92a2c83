import type { BrandValues, Toggles } from '../store/generated/bemteviApi'

/** A customer permission a parent passes down (the toggles of a customer's detail). */
export type ToggleName = keyof Toggles
export const TOGGLE_NAMES: ToggleName[] = ['allowCreatedWhiteLabel', 'allowUploadingManualQueries', 'allowDeletedAndCancelled']

/** The brand's images (fields of its values) and the exact size, in pixels, each must have. */
export const IMAGE_SIZES = {
  horizontalLogo: [208, 68],
  iconogram: [500, 500],
  loginBanner: [708, 896],
  advancedQueryBanner: [200, 1134],
} satisfies Partial<Record<keyof BrandValues, [number, number]>>
export type BrandImageKind = keyof typeof IMAGE_SIZES

const HEX = /^#(?:[0-9a-fA-F]{3}|[0-9a-fA-F]{6})$/

/** A colour field's message key, or null when valid (empty falls back to the parent's colour). */
export function colourError(value: string | null | undefined): string | null {
  const text = (value ?? '').trim()
  if (!text) return null
  return HEX.test(text) ? null : 'brand.errors.colour'
}

/** '#abc' -> '#AABBCC'; anything else as it is. */
export function normaliseColour(value: string): string {
  const text = value.trim()
  if (!HEX.test(text)) return text
  const hex = text.length === 4 ? text.slice(1).split('').map((c) => c + c).join('') : text.slice(1)
  return `#${hex.toUpperCase()}`
}

/** The image size message (with the expected size), or null when the pixels are exactly right. */
export function imageSizeError(kind: BrandImageKind, width: number, height: number): { key: string; width: number; height: number } | null {
  const [w, h] = IMAGE_SIZES[kind]
  return width === w && height === h ? null : { key: 'brand.errors.size', width: w, height: h }
}

export const IMAGE_TYPES = ['image/png', 'image/jpeg', 'image/webp']
/** The API's limit for one brand image, in bytes. */
export const MAX_IMAGE_BYTES = 2 * 1024 * 1024

/**
 * Whether a chosen file goes to the API as it is: a type the API takes, the exact size and within
 * the byte limit. Any other image the browser can read is cropped and resized first.
 */
export function uploadsAsIs(kind: BrandImageKind, file: { type: string; size: number }, width: number, height: number): boolean {
  return IMAGE_TYPES.includes(file.type) && file.size <= MAX_IMAGE_BYTES && imageSizeError(kind, width, height) === null
}

/** A child may only have the toggles its parent has: the ones it may switch on. */
export function allowedToggles(parent: Toggles): Record<ToggleName, boolean> {
  return Object.fromEntries(TOGGLE_NAMES.map((name) => [name, parent[name] === true])) as Record<ToggleName, boolean>
}

/** Query types a child may get: only its parent's. */
export function allowedQueryTypes(all: readonly string[], parent: readonly string[] | null): string[] {
  return parent ? all.filter((q) => parent.includes(q)) : [...all]
}
