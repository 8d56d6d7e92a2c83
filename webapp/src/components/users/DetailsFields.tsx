import { useTranslation } from 'react-i18next'
import Field from '../FormField'
import type { UserDetailsForm } from '../../lib/users/details'

/** Full name, CPF, functions (required), phone, user name, social profile and biography. */
export default function DetailsFields({
  form,
  errors,
  onChange,
}: {
  form: UserDetailsForm
  errors: Record<string, string>
  onChange: (patch: Partial<UserDetailsForm>) => void
}) {
  const { t } = useTranslation()
  const err = (field: string) => (errors[field] ? t(errors[field]) : undefined)
  return (
    <>
      <Field label={`${t('users.name')} *`} error={err('name')}>
        <input value={form.name} onChange={(e) => onChange({ name: e.target.value })} data-testid="user-name" />
      </Field>
      <Field label={`${t('users.cpf')} *`} error={err('cpf')}>
        <input value={form.cpf} inputMode="numeric" onChange={(e) => onChange({ cpf: e.target.value })} data-testid="user-cpf" />
      </Field>
      <Field label={`${t('users.functions')} *`} error={err('functions')}>
        <input value={form.functions} onChange={(e) => onChange({ functions: e.target.value })} data-testid="user-functions" />
      </Field>
      <Field label={t('users.phone')} error={err('phone')}>
        <input type="tel" value={form.phone} onChange={(e) => onChange({ phone: e.target.value })} data-testid="user-phone" />
      </Field>
      <Field label={t('users.userName')}>
        <input value={form.userName} onChange={(e) => onChange({ userName: e.target.value })} data-testid="user-username" />
      </Field>
      <Field label={t('users.socialProfile')}>
        <input value={form.socialProfile} onChange={(e) => onChange({ socialProfile: e.target.value })} data-testid="user-social" />
      </Field>
      <label className="form-field form-wide">
        <span>{t('users.biography')}</span>
        <textarea
          rows={3}
          maxLength={1000}
          value={form.biography}
          onChange={(e) => onChange({ biography: e.target.value })}
          data-testid="user-biography"
        />
      </label>
    </>
  )
}
