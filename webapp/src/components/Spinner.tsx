import { useTranslation } from 'react-i18next'

export default function Spinner({ overlay = false }: { overlay?: boolean }) {
  const { t } = useTranslation()
  return (
    <div className={overlay ? 'loading-overlay' : 'loading-inline'} role="status" aria-live="polite">
      <span className="spinner" aria-hidden="true" />
      <span className="sr-only">{t('app.loading')}</span>
    </div>
  )
}
