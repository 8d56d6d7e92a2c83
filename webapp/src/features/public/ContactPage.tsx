import { useTranslation } from 'react-i18next'
import { useSearchParams } from 'react-router'
import { useBrand } from '../../components/useBrand'
import { MapArt } from './art'
import ContactForm from './ContactForm'
import PageHero from './PageHero'
import { siteContact, telHref } from './siteContact'

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
  const { brand } = useBrand()
  const [params] = useSearchParams()
  const service = params.get('service')
  const contact = siteContact(brand, t)
  const label = contact.whiteLabel
  const none = !contact.phone && !contact.email && !contact.address
  return (
    <div data-testid="public-contact">
      <PageHero title={t('public.contact.title')} lead={t(label ? 'public.label.contactLead' : 'public.contact.lead')} />
      <section className="pub-section">
        <div className="pub-container pub-contact-grid">
          <div className="pub-contact-info">
            {label && none ? (
              <p data-testid="contact-neutral">{t('public.label.contactNone')}</p>
            ) : (
              <dl data-testid="contact-details">
                {contact.phone && (
                  <Item label={t('public.contact.phoneLabel')}>
                    <a href={telHref(contact.phone)}>{contact.phone}</a>
                  </Item>
                )}
                {contact.email && (
                  <Item label={t('public.contact.emailLabel')}>
                    <a href={`mailto:${contact.email}`}>{contact.email}</a>
                  </Item>
                )}
                {contact.address && <Item label={t('public.contact.locationLabel')}>{contact.address}</Item>}
                {/* The platform's opening hours and map are its own: a customer's site shows neither. */}
                {!label && <Item label={t('public.contact.hoursLabel')}>{t('public.contact.hours')}</Item>}
              </dl>
            )}
            {!label && <MapArt label={t('public.contact.mapArt')} />}
          </div>
          {/* A new key per preselected service: following a service link starts a fresh form. */}
          <ContactForm key={service ?? ''} initialService={service} />
        </div>
      </section>
    </div>
  )
}
