import type { ReactNode } from 'react'
import { useTranslation } from 'react-i18next'
import { Link as RouterLink } from 'react-router'
import Alert from '@mui/material/Alert'
import Box from '@mui/material/Box'
import Button from '@mui/material/Button'
import Stack from '@mui/material/Stack'
import Typography from '@mui/material/Typography'
import Spinner from '../Spinner'
import { errorText } from '../errorText'
import FormCard from './FormCard'
import type { AnyError } from '../../lib/errors'

/**
 * The one shell of the signed-in app's add/edit screens: a title with the way back to the list, the
 * loading state and the loading failure of an edited record, the form itself laid out in one column on
 * phones and two from 600 px, the server's refusal, and Save/Cancel sized to their text.
 */
export default function FormPage({
  title,
  backTo,
  backLabel,
  loading,
  loadError,
  onSubmit,
  saving,
  submitLabel,
  savingLabel,
  serverError,
  saveError,
  testId,
  submitTestId,
  errorTestId,
  aside,
  children,
}: {
  title: string
  /** The list the screen came from: where Cancel and a saved form go. */
  backTo: string
  backLabel: string
  loading?: boolean
  /** The edited record could not be read: the screen shows why and the way back instead of the form. */
  loadError?: unknown
  onSubmit: () => unknown
  saving: boolean
  submitLabel: string
  savingLabel?: string
  /** The server's refusal of the last save, in the reader's language (a screen that words it itself). */
  serverError?: string | null
  /** The failed save itself: FormPage says it with the error catalogue's text for its code. */
  saveError?: unknown
  testId: string
  submitTestId?: string
  errorTestId?: string
  /** Shown under the form, outside it (a live preview, a second card). */
  aside?: ReactNode
  children: ReactNode
}) {
  const { t, i18n } = useTranslation()
  const refusal = serverError ?? (saveError ? errorText(saveError as AnyError, t, (k) => i18n.exists(k)) : null)
  const back = (
    <Button component={RouterLink} to={backTo} variant="outlined" sx={{ flexShrink: 0 }}>
      {backLabel}
    </Button>
  )
  if (loading) return <Spinner />
  if (loadError)
    return (
      <Stack spacing={2} sx={{ alignItems: 'flex-start' }}>
        <Alert severity="error" role="alert">
          {errorText(loadError as AnyError, t, (k) => i18n.exists(k))}
        </Alert>
        {back}
      </Stack>
    )
  return (
    <Stack spacing={2} sx={{ minWidth: 0 }}>
      <Stack direction="row" sx={{ gap: 2, alignItems: 'center', justifyContent: 'space-between', flexWrap: 'wrap' }}>
        <Typography variant="h5" component="h1" sx={{ fontWeight: 600, minWidth: 0, overflowWrap: 'anywhere' }}>
          {title}
        </Typography>
        {back}
      </Stack>
      <FormCard onSubmit={onSubmit} testId={testId}>
        {children}
        {refusal && (
          <Alert severity="error" role="alert" data-testid={errorTestId} sx={{ gridColumn: '1 / -1' }}>
            {refusal}
          </Alert>
        )}
        <Box sx={{ gridColumn: '1 / -1', display: 'flex', gap: 1, flexWrap: 'wrap' }}>
          <Button type="submit" variant="contained" disabled={saving} data-testid={submitTestId}>
            {saving && savingLabel ? savingLabel : submitLabel}
          </Button>
          <Button component={RouterLink} to={backTo} disabled={saving}>
            {t('app.cancel')}
          </Button>
        </Box>
      </FormCard>
      {aside}
    </Stack>
  )
}
