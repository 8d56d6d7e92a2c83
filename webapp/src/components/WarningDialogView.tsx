import { useTranslation } from 'react-i18next'
import Button from '@mui/material/Button'
import Dialog from '@mui/material/Dialog'
import DialogActions from '@mui/material/DialogActions'
import DialogContent from '@mui/material/DialogContent'
import DialogContentText from '@mui/material/DialogContentText'
import DialogTitle from '@mui/material/DialogTitle'
import MuiProvider from './mui/MuiProvider'

/** The MUI face of <WarningDialog/>, in its own chunk (see ConfirmDialogView); only OK closes it. */
export default function WarningDialogView({ text, onOk }: { text: string; onOk: () => void }) {
  const { t } = useTranslation()
  return (
    <MuiProvider>
      <Dialog
        open
        aria-labelledby="warning-title"
        aria-describedby="warning-text"
        fullWidth
        maxWidth="xs"
        slotProps={{ paper: { 'data-testid': 'warning-dialog', role: 'alertdialog' } as object }}
      >
        <DialogTitle id="warning-title">{t('errors.warning')}</DialogTitle>
        <DialogContent>
          <DialogContentText id="warning-text" sx={{ color: 'text.primary' }}>
            {text}
          </DialogContentText>
        </DialogContent>
        <DialogActions>
          <Button autoFocus variant="contained" onClick={onOk} data-testid="warning-ok">
            {t('app.ok')}
          </Button>
        </DialogActions>
      </Dialog>
    </MuiProvider>
  )
}
