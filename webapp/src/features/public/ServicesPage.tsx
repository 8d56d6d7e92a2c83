import { useEffect } from 'react'
import { useTranslation } from 'react-i18next'
import { Link, useLocation } from 'react-router'
import { ServiceIcon } from './art'
import ClosingCta from './ClosingCta'
import PageHero from './PageHero'
import { SERVICE_KEYS } from './services'

export default function ServicesPage() {
  const { t } = useTranslation()
  const { hash } = useLocation()

  // /services#api scrolls to that service (the home page's cards link here).
  useEffect(() => {
    if (!hash) return
    document.getElementById(decodeURIComponent(hash.slice(1)))?.scrollIntoView?.({ block: 'start' })
  }, [hash])

  return (
    <div data-testid="public-services">
      <PageHero title={t('public.servicesPage.title')} lead={t('public.servicesPage.lead')} />
      <section className="pub-section">
        <div className="pub-container">
          <ul className="pub-service-list">
            {SERVICE_KEYS.map((key) => {
              const details = t(`public.services.items.${key}.details`, { returnObjects: true }) as string[]
              return (
                <li key={key} id={key} className="pub-service">
                  <span className="pub-card-icon pub-card-icon-lg">
                    <ServiceIcon service={key} />
                  </span>
                  <div>
                    <h2>{t(`public.services.items.${key}.title`)}</h2>
                    <p>{t(`public.services.items.${key}.summary`)}</p>
                    <ul className="pub-checks">
                      {details.map((d) => (
                        <li key={d}>{d}</li>
                      ))}
                    </ul>
                    <Link className="pub-card-link" to={`/contact?service=${key}`}>
                      {t('public.services.ask')} <span aria-hidden="true">→</span>
                    </Link>
                  </div>
                </li>
              )
            })}
          </ul>
        </div>
      </section>
      <ClosingCta />
    </div>
  )
}
