import { useTranslation } from 'react-i18next'
import Button from '@mui/material/Button'
import { useNotify } from '../../components/feedback'

/** Copies ``text`` to the clipboard and says so. */
export default function CopyButton({ text, label, testId }: { text: string; label?: string; testId?: string }) {
  const { t } = useTranslation()
  const notify = useNotify()
  return (
    <Button
      size="small"
      variant="outlined"
      data-testid={testId}
      onClick={() => {
        void navigator.clipboard?.writeText(text).then(() => notify({ type: 'positive', message: t('api.copied') }))
      }}
    >
      {label ?? t('api.copy')}
    </Button>
  )
}
