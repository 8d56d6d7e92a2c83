import { useTranslation } from 'react-i18next'
import i18n from '../../i18n'
import { useBrand } from '../../components/useBrand'
import { formatDate } from './dates'
import { legalEnUS, legalPtBR } from './legalText'
import PageHero from './PageHero'
import { siteContact, telHref } from './siteContact'

// The legal texts travel with this chunk only; they join the `public` namespace when it loads.
i18n.addResourceBundle('pt-BR', 'translation', { public: { legalText: legalPtBR } }, true, false)
i18n.addResourceBundle('en-US', 'translation', { public: { legalText: legalEnUS } }, true, false)

interface Section {
  title: string
  paragraphs: string[]
}

/** Terms of use or privacy policy, in the visitor's language. */
export default function LegalPage({ doc }: { doc: 'terms' | 'privacy' }) {
  const { t } = useTranslation()
  const base = `public.legalText.${doc}`
  const sections = t(`${base}.sections`, { returnObjects: true }) as Section[]
  const updated = formatDate(t(`${base}.updated`), i18n.language)
  const { brand } = useBrand()
  const contact = siteContact(brand, t)
  return (
    <div data-testid={`public-${doc}`}>
      <PageHero title={t(`${base}.title`)} lead={t(`${base}.lead`)} />
      <section className="pub-section">
        <div className="pub-container pub-legal">
          <nav className="pub-legal-toc" aria-label={t('public.legal.contents')}>
            <h2>{t('public.legal.contents')}</h2>
            <ol>
              {sections.map((s, i) => (
                <li key={s.title}>
                  <a href={`#${doc}-${i + 1}`}>{s.title.replace(/^\d+\.\s*/, '')}</a>
                </li>
              ))}
            </ol>
          </nav>
          <article className="pub-legal-body">
            <p className="pub-note">{t('public.legal.updated', { date: updated })}</p>
            {sections.map((s, i) => (
              <section key={s.title} id={`${doc}-${i + 1}`}>
                <h2>{s.title}</h2>
                {s.paragraphs.map((p) => (
                  <p key={p}>{p}</p>
                ))}
              </section>
            ))}
            {(contact.email || contact.phone) && (
              <p className="pub-note" data-testid="legal-contact">
                {t('public.label.legalContact')}:{' '}
                {contact.email && <a href={`mailto:${contact.email}`}>{contact.email}</a>}
                {contact.email && contact.phone && ' · '}
                {contact.phone && <a href={telHref(contact.phone)}>{contact.phone}</a>}
              </p>
            )}
          </article>
        </div>
      </section>
    </div>
  )
}
