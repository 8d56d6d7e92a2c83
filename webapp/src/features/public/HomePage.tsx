import { useTranslation } from 'react-i18next'
import { Link } from 'react-router'
import { CustomerLogo, HeroArt, ServiceIcon, TrustIcon } from './art'
import FigureList from './FigureList'
import { CUSTOMER_LOGOS } from './logos'
import CountUp from './CountUp'
import { FIGURES, RECORDS } from './figures'
import ClosingCta from './ClosingCta'
import { DEMO_LINK, SERVICE_KEYS } from './services'
import TeamVideo from './TeamVideo'

const STEPS = [0, 1, 2] as const
const ACCORDION = ['mission', 'vision', 'values', 'differentials', 'history'] as const
const TRUST = ['lgpd', 'audit', 'access', 'security'] as const

export default function HomePage() {
  const { t } = useTranslation()
  const who = t('public.home.whoText', { returnObjects: true }) as string[]
  const figures = FIGURES.filter((f) => ['users', 'customers', 'layouts', 'years'].includes(f.key))
  const impact = FIGURES.filter((f) => ['companies', 'efficiency'].includes(f.key))
  return (
    <div className="pub-home" data-testid="public-home">
      <section className="pub-hero">
        <div className="pub-container pub-hero-grid">
          <div>
            <p className="pub-eyebrow">{t('public.home.eyebrow')}</p>
            <h1>{t('public.home.title')}</h1>
            <p className="pub-lead">{t('public.home.lead')}</p>
            <div className="pub-actions">
              <Link className="pub-btn pub-btn-primary pub-btn-lg" to={DEMO_LINK} data-testid="hero-demo">
                {t('public.cta.demo')}
              </Link>
              <Link className="pub-btn pub-btn-ghost pub-btn-lg" to="/services">
                {t('public.cta.services')}
              </Link>
            </div>
            <p className="pub-note">{t('public.home.heroNote')}</p>
          </div>
          <HeroArt label={t('public.home.art')} />
        </div>
      </section>

      <section className="pub-logos" aria-labelledby="pub-logos-title">
        <div className="pub-container">
          <h2 id="pub-logos-title" className="pub-logos-title">
            {t('public.home.logosTitle')}
          </h2>
          <ul className="pub-logo-row" aria-label={t('public.logos')}>
            {CUSTOMER_LOGOS.map((logo) => (
              <li key={logo.name}>
                <CustomerLogo spec={logo} />
              </li>
            ))}
          </ul>
        </div>
      </section>

      <section className="pub-section">
        <div className="pub-container">
          <header className="pub-section-head">
            <h2>{t('public.home.howTitle')}</h2>
            <p>{t('public.home.howLead')}</p>
          </header>
          <ol className="pub-steps">
            {STEPS.map((i) => (
              <li key={i} className="pub-step">
                <span className="pub-step-n" aria-hidden="true">
                  {i + 1}
                </span>
                <h3>{t(`public.home.steps.${i}.title`)}</h3>
                <p>{t(`public.home.steps.${i}.text`)}</p>
              </li>
            ))}
          </ol>
        </div>
      </section>

      <section className="pub-section pub-section-tint">
        <div className="pub-container">
          <header className="pub-section-head">
            <h2>{t('public.home.servicesTitle')}</h2>
            <p>{t('public.services.lead')}</p>
          </header>
          <ul className="pub-cards pub-cards-4" data-testid="service-cards">
            {SERVICE_KEYS.map((key) => (
              <li key={key} className="pub-card">
                <span className="pub-card-icon">
                  <ServiceIcon service={key} />
                </span>
                <h3>{t(`public.services.items.${key}.title`)}</h3>
                <p>{t(`public.services.items.${key}.summary`)}</p>
                <Link to={`/services#${key}`} className="pub-card-link">
                  {t('public.services.more')} <span aria-hidden="true">→</span>
                </Link>
              </li>
            ))}
          </ul>
        </div>
      </section>

      <section className="pub-section">
        <div className="pub-container pub-split">
          <div>
            <h2>{t('public.home.whoTitle')}</h2>
            {who.map((p) => (
              <p key={p}>{p}</p>
            ))}
            <Link to="/about" className="pub-card-link">
              {t('public.nav.about')} <span aria-hidden="true">→</span>
            </Link>
          </div>
          <FigureList figures={figures} className="pub-figures-grid" />
        </div>
      </section>

      <section className="pub-impact" aria-labelledby="pub-impact-title">
        <div className="pub-container pub-impact-grid">
          <div>
            <h2 id="pub-impact-title">{t('public.home.impactTitle')}</h2>
            <p className="pub-impact-number">
              <CountUp to={RECORDS.value} suffix={RECORDS.suffix} testId="impact-records" />
            </p>
            <p>{t('public.home.impactText')}</p>
          </div>
          <FigureList figures={impact} className="pub-figures-light" />
        </div>
      </section>

      <section className="pub-section">
        <div className="pub-container pub-split">
          <div>
            <h2>{t('public.home.accordionTitle')}</h2>
            <div className="pub-accordion" data-testid="values-accordion">
              {ACCORDION.map((key, i) => (
                <details key={key} open={i === 0} name="pub-values">
                  <summary>{t(`public.home.accordion.${key}.title`)}</summary>
                  <p>{t(`public.home.accordion.${key}.text`)}</p>
                </details>
              ))}
            </div>
          </div>
          <figure className="pub-quote">
            <svg viewBox="0 0 40 32" width="40" height="32" aria-hidden="true">
              <path d="M0 32V18C0 8 6 2 16 0l2 4C11 6 8 10 8 16h8v16zm22 0V18c0-10 6-16 16-18l2 4c-7 2-10 6-10 12h8v16z" fill="currentColor" />
            </svg>
            <blockquote>{t('public.home.testimonial.quote')}</blockquote>
            <figcaption>
              <strong>{t('public.home.testimonial.name')}</strong>
              <span>{t('public.home.testimonial.role')}</span>
              <small>{t('public.home.testimonial.note')}</small>
            </figcaption>
          </figure>
        </div>
      </section>

      <section className="pub-section pub-section-tint">
        <div className="pub-container pub-split pub-split-media">
          <div>
            <h2>{t('public.home.videoTitle')}</h2>
            <p>{t('public.home.videoText')}</p>
          </div>
          <TeamVideo />
        </div>
      </section>

      <section className="pub-section">
        <div className="pub-container">
          <header className="pub-section-head">
            <h2>{t('public.home.trustTitle')}</h2>
          </header>
          <ul className="pub-cards pub-cards-4">
            {TRUST.map((key) => (
              <li key={key} className="pub-card pub-card-trust">
                <span className="pub-card-icon">
                  <TrustIcon kind={key} />
                </span>
                <h3>{t(`public.home.trust.${key}.title`)}</h3>
                <p>{t(`public.home.trust.${key}.text`)}</p>
              </li>
            ))}
          </ul>
        </div>
      </section>

      <ClosingCta />
    </div>
  )
}
