import { lazy, Suspense, useState, type ReactNode } from 'react'
import { useTranslation } from 'react-i18next'
import Box from '@mui/material/Box'
import Button from '@mui/material/Button'
import InputAdornment from '@mui/material/InputAdornment'
import Stack from '@mui/material/Stack'
import TextField from '@mui/material/TextField'
import Typography from '@mui/material/Typography'
import { useNotify } from '../feedback'
import { errorText } from '../errorText'
import { type AnyError } from '../../lib/errors'
import { capitalizeWords, DEFAULT_BRAND, textColorOn } from '../../lib/brand'
import {
  useBrandOfQuery,
  useChangeBrandMutation,
  useRemoveImageMutation,
  useUploadImageMutation,
  type BrandValues,
} from '../../store/generated/bemteviApi'
import { useAppSelector } from '../../store/hooks'
import { colourError, IMAGE_SIZES, normaliseColour, uploadsAsIs, type BrandImageKind } from '../../lib/brandRules'
import { loadImage, type LoadedImage } from '../../lib/imageCrop'
import './brand.css'

const COLOURS = ['primaryColor', 'secondaryColor', 'lighterColor'] as const
type ColourField = (typeof COLOURS)[number]
// The customer's contact data, shown on its public pages instead of the platform's (limits as the API's).
const CONTACTS = [
  { field: 'contactEmail', max: 120, type: 'email' },
  { field: 'contactPhone', max: 20, type: 'tel' },
  { field: 'contactAddress', max: 200, type: 'text' },
  { field: 'aboutText', max: 1000, type: 'textarea' },
] as const
type ContactField = (typeof CONTACTS)[number]['field']
type EditedField = 'appTitle' | ColourField | ContactField

/** The field an API refusal names, when it is one of the form's. */
function refusedField(error: unknown): string | null {
  const data = (error as { data?: { field?: unknown } } | undefined)?.data
  return typeof data?.field === 'string' ? data.field : null
}
const KINDS = Object.keys(IMAGE_SIZES) as BrandImageKind[]
// The crop dialog (and its cropping library) loads when an image needs it.
const ImageCropDialog = lazy(() => import('./ImageCropDialog'))

/**
 * Title, colours and images of one group, with a live preview of how they will show. A guided set-up
 * names the save button after its next step (`saveLabel`), moves on once the brand is saved (`onSaved`)
 * and puts its own buttons (back, skip) beside it (`extraActions`).
 */
export default function BrandEditor({
  groupId,
  onSaved,
  saveLabel,
  extraActions,
}: {
  groupId: string
  onSaved?: () => void
  saveLabel?: string
  extraActions?: ReactNode
}) {
  const { t, i18n } = useTranslation()
  const notify = useNotify()
  const position = useAppSelector((s) => s.session.lastPosition)
  const { data } = useBrandOfQuery({ groupId, position }, { refetchOnMountOrArgChange: true })
  const [change, { isLoading: saving }] = useChangeBrandMutation()
  const [upload] = useUploadImageMutation()
  const [remove] = useRemoveImageMutation()
  const [values, setValues] = useState<Pick<BrandValues, EditedField>>({
    appTitle: '',
    primaryColor: '',
    secondaryColor: '',
    lighterColor: '',
    contactEmail: '',
    contactPhone: '',
    contactAddress: '',
    aboutText: '',
  })
  const [errors, setErrors] = useState<Record<string, string>>({})
  const [busy, setBusy] = useState<BrandImageKind | null>(null)
  // An image chosen with other pixels than its kind's: cropped and resized before it is sent.
  const [cropping, setCropping] = useState<{ kind: BrandImageKind; source: LoadedImage } | null>(null)

  // Each answer of the server fills the fields once (derived while rendering, not in an effect).
  const [filledFrom, setFilledFrom] = useState<typeof data>(undefined)
  // A field the person has typed in keeps what they typed: an answer arriving after (a slow server) never
  // wipes it.
  const [typed, setTyped] = useState<ReadonlySet<EditedField>>(new Set())
  if (data && data !== filledFrom) {
    setFilledFrom(data)
    const served: Pick<BrandValues, EditedField> = {
      appTitle: data.own.appTitle ?? '',
      primaryColor: data.own.primaryColor ?? '',
      secondaryColor: data.own.secondaryColor ?? '',
      lighterColor: data.own.lighterColor ?? '',
      contactEmail: data.own.contactEmail ?? '',
      contactPhone: data.own.contactPhone ?? '',
      contactAddress: data.own.contactAddress ?? '',
      aboutText: data.own.aboutText ?? '',
    }
    for (const field of typed) served[field] = values[field]
    setValues(served)
  }
  function edit(field: EditedField, value: string) {
    setValues((current) => ({ ...current, [field]: value }))
    if (!typed.has(field)) setTyped(new Set(typed).add(field))
  }

  const inherited = data?.resolved
  // What the brand will look like: typed values, else what it inherits, else the defaults.
  const shown = (field: ColourField): string => {
    const typed = (values[field] ?? '').trim()
    if (typed && !colourError(typed)) return normaliseColour(typed)
    const parent = data && !data.own[field] ? inherited?.[field] : null
    return parent ?? DEFAULT_BRAND[field]
  }
  const title = capitalizeWords((values.appTitle ?? '').trim() || inherited?.appTitle || DEFAULT_BRAND.appTitle)
  const image = (kind: BrandImageKind) => data?.resolved[kind] ?? null

  function failed(error: unknown) {
    notify({ type: 'negative', message: errorText(error as AnyError, t, (k) => i18n.exists(k)) })
  }

  async function save() {
    const found: Record<string, string> = {}
    for (const field of COLOURS) {
      const e = colourError(values[field])
      if (e) found[field] = e
    }
    setErrors(found)
    if (Object.keys(found).length > 0) return
    const body = {
      appTitle: (values.appTitle ?? '').trim(),
      ...Object.fromEntries(COLOURS.map((f) => [f, (values[f] ?? '').trim() ? normaliseColour(values[f] ?? '') : ''])),
      ...Object.fromEntries(CONTACTS.map(({ field }) => [field, (values[field] ?? '').trim()])),
    }
    const result = await change({ groupId, brandRequest: body })
    if ('error' in result) {
      failed(result.error)
      const field = refusedField(result.error)
      if (field) setErrors({ [field]: errorText(result.error as AnyError, t, (k) => i18n.exists(k)) })
    } else {
      notify({ type: 'positive', message: t('brand.saved') })
      onSaved?.()
    }
  }

  /** Sends an image; true once the API took it. */
  async function send(kind: BrandImageKind, body: Blob): Promise<boolean> {
    setBusy(kind)
    const result = await upload({ groupId, kind, body })
    setBusy(null)
    if ('error' in result) {
      failed(result.error)
      setErrors((e) => ({ ...e, [kind]: errorText(result.error as AnyError, t, (k) => i18n.exists(k)) }))
      return false
    }
    notify({ type: 'positive', message: t('brand.imageSaved') })
    return true
  }

  /** A file of the exact size goes as it is; any other image opens the crop dialog first. */
  async function pick(kind: BrandImageKind, file: File | undefined) {
    if (!file) return
    setErrors((e) => ({ ...e, [kind]: '' }))
    let source: LoadedImage
    try {
      source = await loadImage(file)
    } catch {
      setErrors((e) => ({ ...e, [kind]: t('brand.errors.unreadable') }))
      return
    }
    if (uploadsAsIs(kind, file, source.width, source.height)) {
      URL.revokeObjectURL(source.url)
      await send(kind, file)
    } else setCropping({ kind, source })
  }

  function closeCrop() {
    if (cropping) URL.revokeObjectURL(cropping.source.url)
    setCropping(null)
  }

  const actions = (
    <div className="actions" style={{ flexWrap: 'wrap', justifyContent: 'flex-end' }}>
      {extraActions}
      <Button variant="contained" onClick={() => void save()} disabled={saving} data-testid="brand-save">
        {saveLabel ?? t('brand.save')}
      </Button>
    </div>
  )

  return (
    <div className="brand-editor" data-testid="brand-editor">
      <div className="brand-fields">
        <TextField
          label={t('brand.appTitle')}
          value={values.appTitle ?? ''}
          placeholder={inherited?.appTitle ?? ''}
          onChange={(e) => edit('appTitle', e.target.value)}
          fullWidth
          slotProps={{ inputLabel: { shrink: true }, htmlInput: { maxLength: 60, 'data-testid': 'brand-title' } }}
        />
        {COLOURS.map((field) => (
          <TextField
            key={field}
            label={t(`brand.${field}`)}
            value={values[field] ?? ''}
            placeholder={shown(field)}
            onChange={(e) => edit(field, e.target.value)}
            error={!!errors[field]}
            helperText={errors[field] ? t(errors[field]) : undefined}
            fullWidth
            slotProps={{
              inputLabel: { shrink: true },
              htmlInput: { 'data-testid': `brand-${field}` },
              input: {
                // The browser's colour picker as the field's swatch: typed hex or picked, one value.
                startAdornment: (
                  <InputAdornment position="start">
                    <input
                      type="color"
                      className="colour-swatch"
                      value={shown(field).length === 7 ? shown(field) : '#000000'}
                      onChange={(e) => edit(field, e.target.value.toUpperCase())}
                      aria-label={t(`brand.${field}`)}
                    />
                  </InputAdornment>
                ),
              },
            }}
          />
        ))}
        <Box component="fieldset" className="brand-contact" data-testid="brand-contact">
          <Typography component="legend" sx={{ fontWeight: 600 }}>
            {t('brand.contact.title')}
          </Typography>
          <Typography variant="body2" color="text.secondary">
            {t('brand.contact.hint')}
          </Typography>
          {CONTACTS.map(({ field, max, type }) => (
            <TextField
              key={field}
              label={t(`brand.contact.${field}`)}
              type={type === 'textarea' ? undefined : type}
              multiline={type === 'textarea'}
              minRows={type === 'textarea' ? 4 : undefined}
              value={values[field] ?? ''}
              placeholder={t(`brand.contact.${field}Placeholder`)}
              onChange={(e) => edit(field, e.target.value)}
              error={!!errors[field]}
              helperText={errors[field] || undefined}
              fullWidth
              slotProps={{
                inputLabel: { shrink: true },
                htmlInput: { maxLength: max, 'data-testid': `brand-${field}` },
                formHelperText: { 'data-testid': `brand-error-${field}` } as object,
              }}
            />
          ))}
        </Box>
        {!onSaved && actions}
        <p className="muted small brand-images-hint">{t('brand.imagesHint')}</p>
        {KINDS.map((kind) => {
          const [w, h] = IMAGE_SIZES[kind]
          const own = data?.own[kind]
          return (
            <div key={kind} className="form-field brand-image-field">
              <span>
                {t(`brand.images.${kind}`)} <small className="muted">({w}x{h} px)</small>
              </span>
              <Stack direction="row" sx={{ gap: 1, alignItems: 'center', flexWrap: 'wrap' }}>
                <Button component="label" variant="outlined" size="small" disabled={busy !== null}>
                  {t('app.chooseFile')}
                  <input
                    hidden
                    type="file"
                    accept="image/*"
                    onChange={(e) => {
                      void pick(kind, e.target.files?.[0])
                      e.target.value = ''
                    }}
                    data-testid={`brand-file-${kind}`}
                  />
                </Button>
                {own && (
                  <Button size="small" color="error" onClick={() => void remove({ groupId, kind })}>
                    {t('brand.removeImage')}
                  </Button>
                )}
              </Stack>
              {own ? null : (
                <small className="muted">{image(kind) ? t('brand.inherited') : t('brand.defaultImage')}</small>
              )}
              {errors[kind] && <small className="field-error" data-testid={`brand-error-${kind}`}>{errors[kind]}</small>}
            </div>
          )
        })}
        {/* A set-up moves on with the save: its button comes after the images, chosen (sent) before it. */}
        {onSaved && actions}
      </div>
      <aside className="brand-preview" aria-label={t('brand.preview')} data-testid="brand-preview">
        <div className="preview-bar" style={{ background: shown('primaryColor'), color: textColorOn(shown('primaryColor')) }}>
          {image('horizontalLogo') ? (
            <img src={image('horizontalLogo') ?? ''} alt={title} className="preview-logo" />
          ) : (
            <strong>{title}</strong>
          )}
        </div>
        <div className="preview-body" style={{ background: shown('lighterColor'), color: textColorOn(shown('lighterColor')) }}>
          <p className="preview-title">{title}</p>
          {/* Only a picture of the brand's button: it does nothing, so it takes no focus. */}
          <Button
            variant="contained"
            disableElevation
            tabIndex={-1}
            sx={{ bgcolor: shown('secondaryColor'), color: textColorOn(shown('secondaryColor')), pointerEvents: 'none' }}
          >
            {t('brand.previewButton')}
          </Button>
          {image('loginBanner') && <img src={image('loginBanner') ?? ''} alt={t('brand.images.loginBanner')} className="preview-banner" />}
          {image('iconogram') && <img src={image('iconogram') ?? ''} alt={t('brand.images.iconogram')} className="preview-icon" />}
        </div>
      </aside>
      {cropping && (
        <Suspense fallback={null}>
          <ImageCropDialog
            kind={cropping.kind}
            source={cropping.source}
            brand={{ title, primary: shown('primaryColor'), secondary: shown('secondaryColor'), lighter: shown('lighterColor') }}
            onCancel={closeCrop}
            onApply={async (image) => {
              const sent = await send(cropping.kind, image)
              if (sent) closeCrop()
              return sent
            }}
          />
        </Suspense>
      )}
    </div>
  )
}
