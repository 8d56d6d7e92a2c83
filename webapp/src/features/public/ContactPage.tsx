import { useTranslation } from 'react-i18next'
import { useSearchParams } from 'react-router'
import { MapArt } from './art'
import ContactForm from './ContactForm'
import PageHero from './PageHero'

function Item({ label, children }: { label: string; children: React.ReactNode }) {
  return (
    <div className="pub-contact-item">
      <dt>{label}</dt>
      <dd>{children}</dd>
    </div>
  )
}

export default function ContactPage() {
  const { t } = useTranslation()
  const [params] = useSearchParams()
  const service = params.get('service')
  return (
    <div data-testid="public-contact">
      <PageHero title={t('public.contact.title')} lead={t('public.contact.lead')} />
      <section className="pub-section">
        <div className="pub-container pub-contact-grid">
          <div className="pub-contact-info">
            <dl>
              <Item label={t('public.contact.phoneLabel')}>
                <a href={`tel:${t('public.contact.phone').replace(/[^\d+]/g, '')}`}>{t('public.contact.phone')}</a>
              </Item>
              <Item label={t('public.contact.emailLabel')}>
                <a href={`mailto:${t('public.contact.email')}`}>{t('public.contact.email')}</a>
              </Item>
              <Item label={t('public.contact.locationLabel')}>{t('public.contact.location')}</Item>
              <Item label={t('public.contact.hoursLabel')}>{t('public.contact.hours')}</Item>
            </dl>
            <MapArt label={t('public.contact.mapArt')} />
          </div>
          {/* A new key per preselected service: following a service link starts a fresh form. */}
          <ContactForm key={service ?? ''} initialService={service} />
        </div>
      </section>
    </div>
  )
}
