import { useRef, useState, type FormEvent } from 'react'
import { useTranslation } from 'react-i18next'
import { Link } from 'react-router'
import { onlyDigits } from '../../lib/documents'
import { useSendContactMutation } from '../../store/generated/bemteviApi'
import { CONTACT_SERVICES, isContactService, type ContactService } from './services'
import { contactErrors, serverFieldErrors, type ContactField, type ContactFormValues } from './validation'

const FIELDS: ContactField[] = ['name', 'document', 'email', 'phone', 'service', 'message']

function emptyForm(service: string): ContactFormValues {
  return { name: '', document: '', email: '', phone: '', service, message: '' }
}

/** The contact / trial form (spec section 5), checked here and again by the server. */
export default function ContactForm({ initialService }: { initialService: string | null }) {
  const { t } = useTranslation()
  const preset = isContactService(initialService) ? initialService : ''
  const [form, setForm] = useState<ContactFormValues>(() => emptyForm(preset))
  const [errors, setErrors] = useState<Partial<Record<ContactField, string>>>({})
  const [failure, setFailure] = useState<string | null>(null)
  const [sentTo, setSentTo] = useState<string | null>(null)
  const [send, { isLoading }] = useSendContactMutation()
  const formRef = useRef<HTMLFormElement>(null)
  const trial = form.service === 'trial'

  function update(field: ContactField, value: string) {
    setForm((f) => ({ ...f, [field]: value }))
    if (errors[field]) setErrors((e) => ({ ...e, [field]: undefined }))
  }

  function focusFirst(found: Partial<Record<ContactField, string>>) {
    const first = FIELDS.find((f) => found[f])
    if (first) formRef.current?.querySelector<HTMLElement>(`[name="${first}"]`)?.focus()
  }

  async function submit(event: FormEvent) {
    event.preventDefault()
    setFailure(null)
    const found = contactErrors(form)
    setErrors(found)
    if (Object.keys(found).length > 0) {
      focusFirst(found)
      return
    }
    const result = await send({
      contactRequestBody: {
        name: form.name.trim(),
        document: onlyDigits(form.document),
        email: form.email.trim(),
        phone: form.phone.trim() ? form.phone.trim() : null,
        service: form.service as ContactService,
        message: form.message.trim(),
        domain_url: window.location.host,
      },
    })
    if ('data' in result && result.data) {
      setSentTo(form.name.trim())
      return
    }
    // Nothing is lost on a refusal: the fields keep what the visitor typed.
    const error = 'error' in result ? (result.error as { status?: unknown; data?: { errors?: unknown } }) : undefined
    if (error?.status === 400) {
      const fromServer = serverFieldErrors(error.data?.errors)
      setErrors(fromServer)
      focusFirst(fromServer)
      setFailure('public.contact.errors.summary')
    } else if (error?.status === 429) setFailure('public.contact.errors.tooMany')
    else setFailure('public.contact.errors.failed')
  }

  if (sentTo !== null) {
    return (
      <div className="pub-success" role="status" data-testid="contact-success">
        <svg viewBox="0 0 48 48" width="48" height="48" aria-hidden="true">
          <circle cx="24" cy="24" r="22" fill="var(--secondary)" />
          <path d="M14 25l7 7 13-15" stroke="#fff" strokeWidth="4" fill="none" strokeLinecap="round" strokeLinejoin="round" />
        </svg>
        <h2>{t('public.contact.successTitle')}</h2>
        <p>{t('public.contact.successText', { name: sentTo })}</p>
        <button
          type="button"
          className="pub-btn pub-btn-ghost"
          onClick={() => {
            setForm(emptyForm(preset))
            setErrors({})
            setSentTo(null)
          }}
        >
          {t('public.contact.another')}
        </button>
      </div>
    )
  }

  const fieldProps = (field: ContactField) => ({
    id: `contact-${field}`,
    name: field,
    value: form[field],
    'aria-invalid': errors[field] ? true : undefined,
    'aria-describedby': errors[field] ? `contact-${field}-error` : undefined,
    'data-testid': `contact-${field}`,
  })
  const fieldError = (field: ContactField) =>
    errors[field] ? (
      <span className="pub-field-error" id={`contact-${field}-error`} data-testid={`contact-${field}-error`}>
        {t(errors[field])}
      </span>
    ) : null

  return (
    <form ref={formRef} className="pub-form" onSubmit={(e) => void submit(e)} noValidate data-testid="contact-form">
      <h2>{trial ? t('public.contact.trialTitle') : t('public.contact.formTitle')}</h2>
      {trial && <p className="pub-note">{t('public.contact.trialHint')}</p>}
      {failure && (
        <p className="pub-alert" role="alert" data-testid="contact-failure">
          {t(failure)}
        </p>
      )}
      <div className="pub-form-grid">
        <label className="pub-field pub-field-wide" htmlFor="contact-name">
          <span>{t('public.contact.name')} *</span>
          <input {...fieldProps('name')} autoComplete="name" maxLength={120} onChange={(e) => update('name', e.target.value)} />
          {fieldError('name')}
        </label>
        <label className="pub-field" htmlFor="contact-document">
          <span>{t('public.contact.document')} *</span>
          <input {...fieldProps('document')} inputMode="numeric" maxLength={18} onChange={(e) => update('document', e.target.value)} />
          {fieldError('document')}
        </label>
        <label className="pub-field" htmlFor="contact-phone">
          <span>{t('public.contact.phone_')}</span>
          <input {...fieldProps('phone')} type="tel" autoComplete="tel" maxLength={20} onChange={(e) => update('phone', e.target.value)} />
          {fieldError('phone')}
        </label>
        <label className="pub-field" htmlFor="contact-email">
          <span>{t('public.contact.email_')} *</span>
          <input {...fieldProps('email')} type="email" autoComplete="email" maxLength={254} onChange={(e) => update('email', e.target.value)} />
          {fieldError('email')}
        </label>
        <label className="pub-field" htmlFor="contact-service">
          <span>{t('public.contact.service')} *</span>
          <select {...fieldProps('service')} onChange={(e) => update('service', e.target.value)}>
            <option value="">{t('public.contact.servicePlaceholder')}</option>
            {CONTACT_SERVICES.map((s) => (
              <option key={s} value={s}>
                {t(`public.services.items.${s}.title`)}
              </option>
            ))}
          </select>
          {fieldError('service')}
        </label>
        <label className="pub-field pub-field-wide" htmlFor="contact-message">
          <span>{t('public.contact.message')} *</span>
          <textarea {...fieldProps('message')} rows={5} maxLength={4000} onChange={(e) => update('message', e.target.value)} />
          {fieldError('message')}
        </label>
      </div>
      <p className="pub-note">
        {t('public.contact.privacyNote')} <Link to="/privacy-policy">{t('public.footer.privacy')}</Link>
      </p>
      <button type="submit" className="pub-btn pub-btn-primary pub-btn-lg" disabled={isLoading} data-testid="contact-submit">
        {isLoading ? t('public.contact.sending') : t('public.contact.send')}
      </button>
    </form>
  )
}
