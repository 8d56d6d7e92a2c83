import { useTranslation } from 'react-i18next'
import { useAppSelector } from '../../store/hooks'
import BrandEditor from '../../components/brand/BrandEditor'

/** The brand of one's own group (white-labels). */
export default function BrandSettingsPage() {
  const { t } = useTranslation()
  const groupId = useAppSelector((s) => s.auth.authUser?.groupId)
  return (
    <div className="page brand-settings">
      <div className="page-header">
        <h1>{t('brand.title')}</h1>
      </div>
      <section className="card">
        <p className="muted small">{t('brand.sectionHint')}</p>
        {groupId ? <BrandEditor groupId={String(groupId)} /> : null}
      </section>
    </div>
  )
}
