import { useState } from 'react'
import { useTranslation } from 'react-i18next'
import Alert from '@mui/material/Alert'
import Box from '@mui/material/Box'
import Button from '@mui/material/Button'
import Card from '@mui/material/Card'
import CardContent from '@mui/material/CardContent'
import MenuItem from '@mui/material/MenuItem'
import Stack from '@mui/material/Stack'
import TextField from '@mui/material/TextField'
import Typography from '@mui/material/Typography'
import PurposeField from '../../components/PurposeField'
import { foldPurpose, purposeProblem, usePurposeSetting } from '../../lib/purpose'
import { useNotify } from '../../components/feedback'
import { formatNumber } from '../../lib/format'
import { errorInfo } from '../../lib/errors'
import { useAppSelector } from '../../store/hooks'
import { useEnabledLayoutsQuery, useListCustomersQuery, type LayoutView } from '../../store/generated/bemteviApi'
import { useBatchLimitsQuery, useSubmitBatchMutation, useUploadBatchFileMutation, type BatchUpload } from './api'
import { batchErrorText } from './errors'
import { EXTENSIONS, MAX_FILE_BYTES, fileLimitsValues, uploadErrors } from './rules'

/** The customer choice that means the user's own group. */
const OWN_GROUP = 'own'

/**
 * The upload card, the free preview card and Confirm (charged only then). `manual`: the new manual
 * enrichment screen (customer and extension chosen; no webhook).
 */
export default function UploadFlow({ manual = false, onSubmitted }: { manual?: boolean; onSubmitted?: () => void }) {
  const { t, i18n } = useTranslation()
  const lang = i18n.language
  const exists = (k: string) => i18n.exists(k)
  const me = useAppSelector((s) => s.auth.authUser)
  const layouts = useEnabledLayoutsQuery({})
  // The records a file may hold are the server's setting: shown under the file field once known.
  const limits = useBatchLimitsQuery()
  const customers = useListCustomersQuery({ perPage: 100 }, { skip: !manual })
  const [groupId, setGroupId] = useState(OWN_GROUP)
  const [layoutId, setLayoutId] = useState('')
  const [extension, setExtension] = useState('')
  const [file, setFile] = useState<File | null>(null)
  const [observation, setObservation] = useState('')
  // What the batch's lookups are for (the group's, or the chosen customer's, setting may require it).
  const purposeSetting = usePurposeSetting(manual && groupId !== OWN_GROUP ? groupId : null)
  const [purpose, setPurpose] = useState('')
  const [webhookUrl, setWebhookUrl] = useState('')
  const [webhookSecret, setWebhookSecret] = useState('')
  const [webhookRefused, setWebhookRefused] = useState<string | null>(null)
  const [tried, setTried] = useState(false)
  const [preview, setPreview] = useState<BatchUpload | null>(null)
  const [failure, setFailure] = useState<string | null>(null)
  const [upload, uploading] = useUploadBatchFileMutation()
  const [submit, submitting] = useSubmitBatchMutation()
  const notify = useNotify()

  const layout: LayoutView | null = layouts.data?.data.find((l) => l.id === layoutId) ?? null
  const chosenExtension = manual ? extension : (layout?.acceptedExtension ?? '').toUpperCase()
  const errors = uploadErrors({ layout, extension: chosenExtension, file, webhookUrl })
  const err = (field: keyof typeof errors) => (tried && errors[field] ? t(`batches.errors.${errors[field]}`) : undefined)
  const purposeIssue = purposeProblem(purpose, purposeSetting.required, purposeSetting.maxLength)

  function reset() {
    setPreview(null)
    setFailure(null)
  }

  async function onPreview() {
    setTried(true)
    reset()
    if (Object.keys(errors).length || purposeIssue || !file || !layout) return
    const result = await upload({ body: file, fileName: file.name, layoutId: layout.id })
    if ('error' in result) setFailure(batchErrorText(result.error, t, exists))
    else setPreview(result.data)
  }

  async function onConfirm() {
    if (!preview) return
    if (purposeIssue) {
      setTried(true)
      return
    }
    const said = foldPurpose(purpose)
    const result = await submit({
      submitBatchRequest: {
        uploadId: preview.uploadId,
        // a manual enrichment names its group (the user's own when no customer is chosen)
        groupId: manual ? (groupId === OWN_GROUP ? me?.groupId : groupId) : undefined,
        observation: observation.trim() || undefined,
        webhookUrl: webhookUrl.trim() || undefined,
        webhookSecret: webhookSecret || undefined,
        purpose: said || undefined,
      },
    })
    if ('error' in result) {
      const text = batchErrorText(result.error, t, exists)
      // A webhook URL the server will not call: said under the field, to be corrected and sent again.
      if (errorInfo(result.error).code === 'webhook_not_allowed') setWebhookRefused(text)
      else setFailure(text)
      return
    }
    notify({ type: 'positive', message: t('batches.preview.submitted') })
    setPreview(null)
    setFile(null)
    setTried(false)
    onSubmitted?.()
  }

  const notEnough = preview !== null && preview.creditsAvailable !== null && preview.creditsAvailable < preview.creditsNeeded
  const accept = manual ? (extension ? `.${extension.toLowerCase()}` : '.txt,.csv,.xlsx') : chosenExtension ? `.${chosenExtension.toLowerCase()}` : undefined

  return (
    <Stack sx={{ gap: 2 }}>
      <Card variant="outlined" data-testid="batch-upload">
        <CardContent>
          <Typography variant="h6" component="h2" sx={{ mb: 2 }}>
            {t('batches.upload.title')}
          </Typography>
          <Box sx={{ display: 'grid', gap: 2, gridTemplateColumns: { xs: '1fr', md: '1fr 1fr' } }}>
            {manual && (
              <TextField
                select
                label={t('batches.upload.customer')}
                value={groupId}
                onChange={(e) => {
                  setGroupId(e.target.value)
                  reset()
                }}
                data-testid="batch-customer"
              >
                <MenuItem value={OWN_GROUP}>{t('batches.upload.ownGroup')}</MenuItem>
                {(customers.data?.data ?? []).map((c) => (
                  <MenuItem key={c.id} value={c.id}>
                    {c.name}
                  </MenuItem>
                ))}
              </TextField>
            )}
            <TextField
              select
              required
              label={t('batches.upload.layout')}
              value={layoutId}
              onChange={(e) => {
                setLayoutId(e.target.value)
                reset()
              }}
              error={!!err('layout')}
              helperText={err('layout') ?? (layouts.data && layouts.data.data.length === 0 ? t('batches.upload.noLayouts') : undefined)}
              data-testid="batch-layout"
            >
              {(layouts.data?.data ?? []).map((l) => (
                <MenuItem key={l.id} value={l.id}>
                  {l.readyTitle?.[i18n.language] ?? l.fileName} ({l.acceptedExtension.toUpperCase()} → {l.returnExtension.toUpperCase()})
                </MenuItem>
              ))}
            </TextField>
            {manual && (
              <TextField
                select
                required
                label={t('batches.upload.extension')}
                value={extension}
                onChange={(e) => {
                  setExtension(e.target.value)
                  reset()
                }}
                error={!!err('extension')}
                helperText={err('extension')}
                data-testid="batch-extension"
              >
                {EXTENSIONS.map((x) => (
                  <MenuItem key={x} value={x}>
                    {x}
                  </MenuItem>
                ))}
              </TextField>
            )}
            <Box sx={{ gridColumn: { md: '1 / -1' } }}>
              <Stack direction="row" sx={{ gap: 1.5, alignItems: 'center', flexWrap: 'wrap' }}>
                <Button variant="outlined" component="label">
                  {t('batches.upload.choose')}
                  <input
                    hidden
                    type="file"
                    accept={accept}
                    data-testid="batch-file"
                    onChange={(e) => {
                      setFile(e.target.files?.[0] ?? null)
                      e.target.value = ''
                      reset()
                    }}
                  />
                </Button>
                <Typography variant="body2" sx={{ overflowWrap: 'anywhere' }} data-testid="batch-file-name">
                  {file ? `${file.name} · ${formatNumber(Math.ceil(file.size / 1024), lang)} KB` : t('batches.upload.noFile')}
                </Typography>
              </Stack>
              <Typography variant="caption" color={err('file') ? 'error' : 'text.secondary'} data-testid="batch-file-error">
                {err('file') ??
                  (limits.data
                    ? t('batches.upload.fileLimits', fileLimitsValues(limits.data, lang))
                    : t('batches.upload.fileHint', { max: MAX_FILE_BYTES }))}
              </Typography>
            </Box>
            <Box sx={{ gridColumn: { md: '1 / -1' }, display: 'flex' }}>
              <PurposeField
                value={purpose}
                onChange={setPurpose}
                required={purposeSetting.required}
                maxLength={purposeSetting.maxLength}
                problem={tried ? purposeIssue : null}
                testId="batch-purpose"
                fullWidth
              />
            </Box>
            <TextField
              label={t('batches.upload.observation')}
              value={observation}
              onChange={(e) => setObservation(e.target.value)}
              slotProps={{ htmlInput: { maxLength: 200, 'data-testid': 'batch-observation' } }}
              sx={{ gridColumn: { md: '1 / -1' } }}
            />
            {!manual && (
              <>
                <TextField
                  label={t('batches.upload.webhookUrl')}
                  value={webhookUrl}
                  onChange={(e) => {
                    setWebhookUrl(e.target.value)
                    setWebhookRefused(null)
                  }}
                  error={!!(err('webhookUrl') ?? webhookRefused)}
                  helperText={err('webhookUrl') ?? webhookRefused ?? t('batches.upload.webhookUrlHint')}
                  slotProps={{ htmlInput: { maxLength: 500, 'data-testid': 'batch-webhook-url' } }}
                />
                <TextField
                  type="password"
                  label={t('batches.upload.webhookSecret')}
                  helperText={t('batches.upload.webhookSecretHint')}
                  value={webhookSecret}
                  onChange={(e) => setWebhookSecret(e.target.value)}
                  disabled={!webhookUrl.trim()}
                  slotProps={{ htmlInput: { maxLength: 200, autoComplete: 'new-password', 'data-testid': 'batch-webhook-secret' } }}
                />
              </>
            )}
          </Box>
          <Stack direction="row" sx={{ justifyContent: 'flex-end', mt: 2 }}>
            <Button variant="contained" onClick={() => void onPreview()} loading={uploading.isLoading} data-testid="batch-preview-button">
              {t('batches.upload.preview')}
            </Button>
          </Stack>
        </CardContent>
      </Card>

      {failure && (
        <Alert severity="error" data-testid="batch-error">
          {failure}
        </Alert>
      )}

      {preview && (
        <Card variant="outlined" data-testid="batch-preview">
          <CardContent>
            <Typography variant="h6" component="h2">
              {t('batches.preview.title')}
            </Typography>
            <Typography variant="body2" color="text.secondary" sx={{ mb: 2 }}>
              {preview.fileName} · {t('batches.preview.free')}
            </Typography>
            <Box component="dl" sx={{ display: 'grid', gap: 1.5, gridTemplateColumns: { xs: '1fr 1fr', md: 'repeat(5, 1fr)' }, m: 0 }}>
              {(
                [
                  ['records', preview.records],
                  ['valid', preview.validDocuments],
                  ['invalid', preview.invalidDocuments],
                  ['found', preview.foundInDataset],
                ] as const
              ).map(([key, value]) => (
                <Box key={key} data-testid={`batch-preview-${key}`}>
                  <Typography component="dt" variant="caption" color="text.secondary">
                    {t(`batches.preview.${key}`)}
                  </Typography>
                  <Typography component="dd" variant="h6" sx={{ m: 0 }}>
                    {formatNumber(value, lang)}
                  </Typography>
                </Box>
              ))}
              <Box data-testid="batch-preview-credits">
                <Typography component="dt" variant="caption" color="text.secondary">
                  {t('batches.preview.credits')}
                </Typography>
                <Typography component="dd" variant="h6" sx={{ m: 0 }} color={notEnough ? 'error' : undefined}>
                  {formatNumber(preview.creditsNeeded, lang)}
                </Typography>
                <Typography component="dd" variant="caption" color="text.secondary" sx={{ m: 0 }}>
                  {t('batches.preview.available')}:{' '}
                  {preview.creditsAvailable === null ? t('batches.preview.unlimited') : formatNumber(preview.creditsAvailable, lang)}
                </Typography>
              </Box>
            </Box>
            {preview.unknownExitFields.length > 0 && (
              <Alert severity="info" sx={{ mt: 2 }} data-testid="batch-preview-empty-fields">
                {t('batches.preview.emptyFields', { fields: preview.unknownExitFields.join(', ') })}
              </Alert>
            )}
            {notEnough && (
              <Alert severity="warning" sx={{ mt: 2 }}>
                {t('batches.preview.notEnough')}
              </Alert>
            )}
            <Stack direction="row" sx={{ justifyContent: 'flex-end', gap: 1, mt: 2, flexWrap: 'wrap' }}>
              <Button onClick={reset}>{t('batches.preview.discard')}</Button>
              <Button variant="contained" onClick={() => void onConfirm()} disabled={notEnough} loading={submitting.isLoading} data-testid="batch-confirm">
                {t('batches.preview.confirm')}
              </Button>
            </Stack>
          </CardContent>
        </Card>
      )}
    </Stack>
  )
}
