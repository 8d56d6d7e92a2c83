import { useTranslation } from 'react-i18next'
import { Link } from 'react-router'
import { useBrand } from '../../components/useBrand'
import { Avatar } from './art'
import ClosingCta from './ClosingCta'
import FigureList from './FigureList'
import { FIGURES, FOUNDED } from './figures'
import PageHero from './PageHero'
import { siteContact, telHref, type SiteContact } from './siteContact'

interface Member {
  name: string
  role: string
}

/** A customer's About page: its own words (or a neutral text) and its contact; nothing of the platform's story. */
function LabelAbout({ contact }: { contact: SiteContact }) {
  const { t } = useTranslation()
  const about = contact.about ?? (t('public.label.about', { returnObjects: true }) as string[])
  const any = contact.email || contact.phone || contact.address
  return (
    <div data-testid="public-about">
      <PageHero title={t('public.about.title')} lead={t('public.label.aboutLead')} />
      <section className="pub-section">
        <div className="pub-container pub-split">
          <div data-testid="about-text">
            <h2>{t('public.label.aboutTitle')}</h2>
            {about.map((p) => (
              <p key={p}>{p}</p>
            ))}
          </div>
          <aside className="pub-founded pub-label-contact" aria-label={t('public.label.contactTitle')}>
            <span>{t('public.label.contactTitle')}</span>
            {contact.email && <a href={`mailto:${contact.email}`}>{contact.email}</a>}
            {contact.phone && <a href={telHref(contact.phone)}>{contact.phone}</a>}
            {contact.address && <span className="pub-note">{contact.address}</span>}
            {!any && (
              <Link className="pub-card-link" to="/contact">
                {t('public.nav.contact')} <span aria-hidden="true">→</span>
              </Link>
            )}
          </aside>
        </div>
      </section>
      <ClosingCta />
    </div>
  )
}

export default function AboutPage() {
  const { t } = useTranslation()
  const { brand } = useBrand()
  const contact = siteContact(brand, t)
  if (contact.whiteLabel) return <LabelAbout contact={contact} />
  const story = t('public.about.story', { returnObjects: true }) as string[]
  const team = t('public.about.team', { returnObjects: true }) as Member[]
  return (
    <div data-testid="public-about">
      <PageHero title={t('public.about.title')} lead={t('public.about.lead')} />
      <section className="pub-section">
        <div className="pub-container pub-split">
          <div>
            <h2>{t('public.about.storyTitle')}</h2>
            {story.map((p) => (
              <p key={p}>{p}</p>
            ))}
          </div>
          <aside className="pub-founded" aria-label={t('public.about.statsTitle')}>
            <span>{t('public.about.founded')}</span>
            <span className="pub-founded-year">{FOUNDED}</span>
            <span className="pub-note">{t('public.about.foundedNote')}</span>
          </aside>
        </div>
      </section>
      <section className="pub-section pub-section-tint">
        <div className="pub-container">
          <header className="pub-section-head">
            <h2>{t('public.about.statsTitle')}</h2>
          </header>
          <FigureList figures={FIGURES} className="pub-figures-grid pub-figures-wide" />
        </div>
      </section>
      <section className="pub-section">
        <div className="pub-container">
          <header className="pub-section-head">
            <h2>{t('public.about.teamTitle')}</h2>
            <p>{t('public.about.teamLead')}</p>
          </header>
          <ul className="pub-team" data-testid="team-list">
            {team.map((m) => (
              <li key={m.name} className="pub-member">
                <Avatar name={m.name} />
                <strong>{m.name}</strong>
                <span>{m.role}</span>
              </li>
            ))}
          </ul>
          <p className="pub-note pub-center">{t('public.about.avatarNote')}</p>
        </div>
      </section>
      <ClosingCta />
    </div>
  )
}
