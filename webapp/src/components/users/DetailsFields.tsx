import { useTranslation } from 'react-i18next'
import { TextInput } from '../form/fields'
import { maskCpf, maskPhone } from '../../lib/masks'
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
      <TextInput label={`${t('users.name')} *`} value={form.name} onChange={(name) => onChange({ name })} error={err('name')} testId="user-name" />
      <TextInput label={`${t('users.cpf')} *`} value={form.cpf} onChange={(cpf) => onChange({ cpf: maskCpf(cpf) })} error={err('cpf')} testId="user-cpf" />
      <TextInput label={`${t('users.functions')} *`} value={form.functions} onChange={(functions) => onChange({ functions })} error={err('functions')} testId="user-functions" />
      <TextInput label={t('users.phone')} type="tel" value={form.phone} onChange={(phone) => onChange({ phone: maskPhone(phone) })} error={err('phone')} testId="user-phone" />
      <TextInput label={t('users.userName')} value={form.userName} onChange={(userName) => onChange({ userName })} testId="user-username" />
      <TextInput label={t('users.socialProfile')} value={form.socialProfile} onChange={(socialProfile) => onChange({ socialProfile })} testId="user-social" />
      <TextInput
        label={t('users.biography')}
        rows={3}
        maxLength={1000}
        value={form.biography}
        onChange={(biography) => onChange({ biography })}
        testId="user-biography"
        wide
      />
    </>
  )
}
