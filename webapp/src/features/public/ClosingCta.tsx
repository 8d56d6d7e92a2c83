import { useTranslation } from 'react-i18next'
import { Link } from 'react-router'
import { DEMO_LINK } from './services'

/** The closing call to action of the public pages. */
export default function ClosingCta() {
  const { t } = useTranslation()
  return (
    <section className="pub-closing">
      <div className="pub-container pub-closing-row">
        <div>
          <h2>{t('public.home.closingTitle')}</h2>
          <p>{t('public.home.closingText')}</p>
        </div>
        <div className="pub-actions">
          <Link className="pub-btn pub-btn-light pub-btn-lg" to={DEMO_LINK}>
            {t('public.cta.demo')}
          </Link>
          <Link className="pub-btn pub-btn-outline-light pub-btn-lg" to="/contact">
            {t('public.cta.contact')}
          </Link>
        </div>
      </div>
    </section>
  )
}
