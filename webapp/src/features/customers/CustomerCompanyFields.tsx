import { useTranslation } from 'react-i18next'
import { SelectInput, TextInput } from '../../components/form/fields'
import { maskCnpj, maskPhone } from '../../lib/masks'
import type { CustomerForm } from './validation'

/** The fields shown in their usual masks while typed. */
const MASKS: Partial<Record<string, (value: string) => string>> = { cnpj: maskCnpj, phone: maskPhone }

type TextField = 'cnpj' | 'companyName' | 'tradeName' | 'personInCharge' | 'phone' | 'email'

/**
 * The company's rows of a customer (type, CNPJ, names, contact, seller, white-label domain), laid in the form
 * grid of the one-page form and of the set-up's first step alike.
 */
export default function CustomerCompanyFields({
  form,
  set,
  err,
  emailLocked = false,
  urlHint,
}: {
  form: CustomerForm
  set: (patch: Partial<CustomerForm>) => void
  /** The field's error in the reader's language, if any. */
  err: (field: string) => string | undefined
  /** The owner signs in with it and the invitation went there: a registered customer's stays (the set-up). */
  emailLocked?: boolean
  urlHint?: string
}) {
  const { t } = useTranslation()
  const text = (field: TextField, testId: string, extra: { type?: string; hint?: string; disabled?: boolean } = {}) => (
    <TextInput
      label={t(`customers.${field}`)}
      type={extra.type ?? 'text'}
      value={form[field]}
      onChange={(value) => set({ [field]: MASKS[field]?.(value) ?? value })}
      error={err(field)}
      hint={extra.hint}
      disabled={extra.disabled}
      testId={testId}
    />
  )
  return (
    <>
      <SelectInput
        label={t('customers.type')}
        value={form.type}
        onChange={(type: CustomerForm['type']) => set({ type })}
        options={(['company', 'reseller', 'white-label'] as const).map((type) => ({ value: type, label: t(`customers.types.${type}`) }))}
        testId="customer-type"
      />
      {text('cnpj', 'customer-cnpj')}
      {text('companyName', 'customer-company-name')}
      {text('tradeName', 'customer-trade-name')}
      {text('personInCharge', 'customer-person')}
      {text('phone', 'customer-phone', { type: 'tel' })}
      {text('email', 'customer-email', {
        type: 'email',
        hint: emailLocked ? t('customers.setup.emailLocked') : undefined,
        disabled: emailLocked,
      })}
      <TextInput label={t('customers.seller')} value={form.seller ?? ''} onChange={(value) => set({ seller: value || null })} testId="customer-seller" />
      {form.type === 'white-label' && (
        <TextInput
          label={t('customers.whiteLabelUrl')}
          value={form.whiteLabelUrl ?? ''}
          onChange={(value) => set({ whiteLabelUrl: value || null })}
          error={err('whiteLabelUrl')}
          hint={urlHint}
          testId="customer-url"
        />
      )}
    </>
  )
}
