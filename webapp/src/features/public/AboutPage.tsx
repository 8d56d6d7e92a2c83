import { useTranslation } from 'react-i18next'
import { Avatar } from './art'
import ClosingCta from './ClosingCta'
import FigureList from './FigureList'
import { FIGURES, FOUNDED } from './figures'
import PageHero from './PageHero'

interface Member {
  name: string
  role: string
}

export default function AboutPage() {
  const { t } = useTranslation()
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
