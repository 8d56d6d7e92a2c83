import { useState } from 'react'
import { useTranslation } from 'react-i18next'
import Button from '@mui/material/Button'
import Dialog from '@mui/material/Dialog'
import DialogActions from '@mui/material/DialogActions'
import DialogContent from '@mui/material/DialogContent'
import DialogContentText from '@mui/material/DialogContentText'
import DialogTitle from '@mui/material/DialogTitle'
import TextField from '@mui/material/TextField'
import MuiProvider from '../mui/MuiProvider'
import type { ConfirmRequest } from '../../store/uiSlice'
import { checkPrompt } from './hooks'

/**
 * The MUI face of <ConfirmDialog/> (its own chunk: the public site never loads the component library).
 * Persistent (no onClose): neither the backdrop nor Escape closes it; only its buttons answer.
 */
export default function ConfirmDialogView({
  request,
  answer,
}: {
  request: ConfirmRequest
  answer: (value: boolean | string | null) => void
}) {
  return (
    <MuiProvider>
      <Dialog
        open
        aria-labelledby="confirm-title"
        aria-describedby="confirm-text"
        fullWidth
        maxWidth="xs"
        slotProps={{ backdrop: { 'data-testid': 'confirm-backdrop' } as object, paper: { 'data-testid': 'confirm-dialog', role: 'alertdialog' } as object }}
      >
        {/* A new request gets fresh state (the prompt's text). */}
        <Body key={request.id} request={request} answer={answer} />
      </Dialog>
    </MuiProvider>
  )
}

function Body({ request, answer }: { request: ConfirmRequest; answer: (value: boolean | string | null) => void }) {
  const { t } = useTranslation()
  const [value, setValue] = useState(request.initial ?? '')
  const [touched, setTouched] = useState(false)
  const prompt = request.variant === 'prompt'
  const problem = prompt ? checkPrompt(request.id, value) : null
  return (
    <form
      onSubmit={(e) => {
        e.preventDefault()
        if (prompt && problem === null) answer(value)
      }}
    >
      <DialogTitle id="confirm-title">{request.title ?? t('frame.feedback.confirmTitle')}</DialogTitle>
      <DialogContent>
        {(request.message || !prompt) && (
          <DialogContentText id="confirm-text" sx={{ color: 'text.primary', mb: prompt ? 2 : 0 }}>
            {request.message ?? t('frame.feedback.confirmText')}
          </DialogContentText>
        )}
        {prompt && (
          <TextField
            autoFocus
            fullWidth
            label={request.label}
            value={value}
            onChange={(e) => {
              setValue(e.target.value)
              setTouched(true)
            }}
            error={touched && problem !== null}
            helperText={touched ? problem ?? ' ' : ' '}
            slotProps={{ htmlInput: { 'data-testid': 'prompt-input' }, formHelperText: { 'data-testid': 'prompt-error' } as object }}
          />
        )}
      </DialogContent>
      <DialogActions>
        {request.variant === 'ok' && (
          <Button autoFocus variant="contained" onClick={() => answer(true)} data-testid="confirm-ok">
            {t('frame.feedback.ok')}
          </Button>
        )}
        {request.variant === 'yesNo' && (
          <>
            <Button autoFocus onClick={() => answer(false)} data-testid="confirm-no">
              {t('frame.feedback.no')}
            </Button>
            <Button variant="contained" onClick={() => answer(true)} data-testid="confirm-yes">
              {t('frame.feedback.yes')}
            </Button>
          </>
        )}
        {prompt && (
          <>
            <Button onClick={() => answer(null)} data-testid="prompt-cancel">
              {t('frame.feedback.cancel')}
            </Button>
            <Button type="submit" variant="contained" disabled={problem !== null} data-testid="prompt-ok">
              {t('frame.feedback.ok')}
            </Button>
          </>
        )}
      </DialogActions>
    </form>
  )
}
