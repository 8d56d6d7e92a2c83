import { useEffect, useRef, useState, type HTMLAttributes } from 'react'
import { useTranslation } from 'react-i18next'
import Cropper from 'react-easy-crop'
import Alert from '@mui/material/Alert'
import Button from '@mui/material/Button'
import Dialog from '@mui/material/Dialog'
import DialogActions from '@mui/material/DialogActions'
import DialogContent from '@mui/material/DialogContent'
import DialogTitle from '@mui/material/DialogTitle'
import Slider from '@mui/material/Slider'
import useMediaQuery from '@mui/material/useMediaQuery'
import { useTheme } from '@mui/material/styles'
import { IMAGE_SIZES, MAX_IMAGE_BYTES, type BrandImageKind } from '../../lib/brandRules'
import { coverArea, encodeImage, enlarges, fitZoom, renderCrop, usableArea, type Area, type LoadedImage, type Size } from '../../lib/imageCrop'

/** Draws the framed part at exactly `target` pixels and encodes it (tests give their own: jsdom has no canvas). */
export type ProduceImage = (source: LoadedImage, area: Area, target: Size) => Promise<Blob>

const produceImage: ProduceImage = (source, area, target) => encodeImage(renderCrop(source.image, source, area, target), MAX_IMAGE_BYTES)

// How each image shows where it is used, in CSS pixels (the app bar's logo is at most 40 px high
// and 160 px wide; the advanced-query page shows the banner's middle 200x560, here at half).
const PLACES: Record<BrandImageKind, Size> = {
  horizontalLogo: { width: 122, height: 40 },
  iconogram: { width: 16, height: 16 },
  loginBanner: { width: 120, height: 150 },
  advancedQueryBanner: { width: 100, height: 280 },
}
const MAX_ZOOM = 5

interface Props {
  kind: BrandImageKind
  source: LoadedImage
  /** The brand as it shows, for the places the image is drawn in. */
  brand: { title: string; primary: string; secondary: string; lighter: string }
  onCancel: () => void
  /** Sends the result; true once the API took it (the dialog closes), false keeps it open. */
  onApply: (image: Blob) => Promise<boolean>
  produce?: ProduceImage
}

function paint(canvas: HTMLCanvasElement | null, from: HTMLCanvasElement, part: Area) {
  const ctx = canvas?.getContext('2d')
  if (!canvas || !ctx) return
  ctx.imageSmoothingQuality = 'high'
  ctx.clearRect(0, 0, canvas.width, canvas.height)
  ctx.drawImage(from, part.x, part.y, part.width, part.height, 0, 0, canvas.width, canvas.height)
}

/**
 * Crops a chosen image to a brand image's exact size: a frame locked to its aspect ratio over the
 * image (drag, zoom), the result at its real size and where it will show, then "apply" sends it.
 */
export default function ImageCropDialog({ kind, source, brand, onCancel, onApply, produce = produceImage }: Props) {
  const { t } = useTranslation()
  const theme = useTheme()
  const narrow = useMediaQuery(theme.breakpoints.down('sm'))
  const [width, height] = IMAGE_SIZES[kind]
  const target = { width, height }
  const minZoom = Math.max(0.05, Math.floor(fitZoom(source, target) * 100) / 100)
  const [crop, setCrop] = useState({ x: 0, y: 0 })
  const [zoom, setZoom] = useState(1)
  // The frame at zoom 1 until the cropper measures itself (it reports the same area then).
  const [area, setArea] = useState<Area>(() => coverArea(source, target))
  const [busy, setBusy] = useState(false)
  const [failed, setFailed] = useState(false)
  const real = useRef<HTMLCanvasElement>(null)
  const place = useRef<HTMLCanvasElement>(null)

  // The previews follow the frame, drawn as the result will be, once per frame of the screen.
  useEffect(() => {
    const frame = requestAnimationFrame(() => {
      const size = { width, height }
      let out: HTMLCanvasElement
      try {
        out = renderCrop(source.image, source, area, size)
      } catch {
        return // no 2D canvas here: no preview, the result is still made on apply
      }
      paint(real.current, out, { x: 0, y: 0, width, height })
      paint(place.current, out, coverArea(size, PLACES[kind]))
    })
    return () => cancelAnimationFrame(frame)
  }, [area, source, kind, width, height])

  async function apply() {
    setBusy(true)
    setFailed(false)
    try {
      const image = await produce(source, area, target)
      if (await onApply(image)) return
    } catch {
      setFailed(true)
    }
    setBusy(false)
  }

  const shown = PLACES[kind]
  const placeCanvas = (
    <canvas
      ref={place}
      width={shown.width * 2}
      height={shown.height * 2}
      style={{ width: shown.width, height: shown.height }}
      className="crop-place-image"
      data-testid="crop-place"
    />
  )
  const round = (v: number) => Math.round(v)

  return (
    <Dialog
      open
      onClose={busy ? undefined : onCancel}
      fullScreen={narrow}
      fullWidth
      maxWidth="md"
      aria-labelledby="crop-title"
      data-testid="crop-dialog"
    >
      <DialogTitle id="crop-title">{t('brand.crop.title', { image: t(`brand.images.${kind}`) })}</DialogTitle>
      <DialogContent dividers>
        <p className="muted small crop-hint">{t('brand.crop.hint', { width, height })}</p>
        <div className="crop-layout">
          <div className="crop-editor">
            <div className={height > width * 2 ? 'crop-area crop-area-tall' : 'crop-area'}>
              <Cropper
                image={source.url}
                crop={crop}
                zoom={zoom}
                aspect={width / height}
                minZoom={minZoom}
                maxZoom={MAX_ZOOM}
                // Zoomed out, the frame may pass the image (transparent there); at 1 and in, it stays on it.
                restrictPosition={zoom >= 1}
                onCropChange={setCrop}
                onZoomChange={setZoom}
                // A frame measured mid-resize reports no area: the last one stands until it measures again.
                onCropAreaChange={(_, pixels) => usableArea(pixels) && setArea(pixels)}
                cropperProps={{ 'aria-label': t('brand.crop.frame'), 'data-testid': 'crop-frame' } as HTMLAttributes<HTMLDivElement>}
              />
            </div>
            <label className="crop-zoom">
              <span>{t('brand.crop.zoom')}</span>
              <Slider
                value={zoom}
                min={minZoom}
                max={MAX_ZOOM}
                step={0.01}
                shiftStep={0.25}
                onChange={(_, value) => setZoom(value as number)}
                aria-label={t('brand.crop.zoom')}
                getAriaValueText={(value) => `${Math.round(value * 100)}%`}
                valueLabelDisplay="auto"
                valueLabelFormat={(value) => `${Math.round(value * 100)}%`}
                data-testid="crop-zoom"
              />
            </label>
            <p className="muted small" data-testid="crop-source">
              {t('brand.crop.source', { width: source.width, height: source.height, area: `${round(area.width)}x${round(area.height)}` })}
            </p>
            {zoom < 1 && <p className="muted small">{t('brand.crop.padded')}</p>}
            {enlarges(area, target) && (
              <Alert severity="warning" data-testid="crop-enlarged">
                {t('brand.crop.enlarged', { width, height })}
              </Alert>
            )}
          </div>
          <div className="crop-previews">
            <h3>{t('brand.crop.realSize', { width, height })}</h3>
            <div className="crop-real">
              <canvas ref={real} width={width} height={height} style={{ width, height }} className="checkered" data-testid="crop-preview" />
            </div>
            <h3>{t(`brand.crop.places.${kind}`)}</h3>
            <div className={`crop-place crop-place-${kind}`} aria-hidden="true">
              {kind === 'horizontalLogo' && (
                <div className="crop-mock-bar" style={{ background: brand.primary }}>
                  {placeCanvas}
                  <span className="crop-mock-pill" />
                  <span className="crop-mock-pill" />
                </div>
              )}
              {kind === 'iconogram' && (
                <div className="crop-mock-tab">
                  {placeCanvas}
                  <span className="crop-mock-tab-title">{brand.title}</span>
                  <span>×</span>
                </div>
              )}
              {kind === 'loginBanner' && (
                <div className="crop-mock-login">
                  {placeCanvas}
                  <div className="crop-mock-card">
                    <span className="crop-mock-line" />
                    <span className="crop-mock-field" />
                    <span className="crop-mock-field" />
                    <span className="crop-mock-button" style={{ background: brand.secondary }} />
                  </div>
                </div>
              )}
              {kind === 'advancedQueryBanner' && (
                <div className="crop-mock-advanced" style={{ background: brand.lighter }}>
                  <div className="crop-mock-card">
                    <span className="crop-mock-line" />
                    <span className="crop-mock-field" />
                    <span className="crop-mock-field" />
                    <span className="crop-mock-field" />
                    <span className="crop-mock-button" style={{ background: brand.primary }} />
                  </div>
                  {placeCanvas}
                </div>
              )}
            </div>
          </div>
        </div>
        {failed && (
          <Alert severity="error" sx={{ mt: 2 }} data-testid="crop-failed">
            {t('brand.crop.failed')}
          </Alert>
        )}
      </DialogContent>
      <DialogActions>
        <Button onClick={onCancel} disabled={busy} data-testid="crop-cancel">
          {t('brand.crop.cancel')}
        </Button>
        <Button variant="contained" onClick={() => void apply()} disabled={busy} data-testid="crop-apply">
          {busy ? t('brand.crop.applying') : t('brand.crop.apply', { width, height })}
        </Button>
      </DialogActions>
    </Dialog>
  )
}
