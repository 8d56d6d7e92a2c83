import { useState } from 'react'
import { useTranslation } from 'react-i18next'
import { useParams } from 'react-router'
import { errorText } from '../../components/errorText'
import FormPage from '../../components/form/FormPage'
import { useLoadedForm, useSaveAndReturn } from '../../components/form/formHooks'
import Typography from '@mui/material/Typography'
import { CheckGroup, CheckInput, FormSection, SelectInput, TextInput } from '../../components/form/fields'
import { WIDE } from '../../components/form/formHooks'
import { errorInfo } from '../../lib/errors'
import { useQueryTypeName } from '../../lib/queryTypeName'
import { useAppSelector } from '../../store/hooks'
import { useAddSupplierMutation, useEditSupplierMutation, useGetSupplierQuery } from '../../store/generated/bemteviApi'
import SupplierLayoutsPicker from './SupplierLayoutsPicker'
import { EMPTY_SUPPLIER, formOf, requestOf, supplierErrors, type SupplierForm } from './validation'

const QUERY_TYPES = ['cpf-complete', 'cnpj-complete'] as const
const AUTH_METHODS = ['basic', 'bearer', 'token', 'prefix'] as const
const INPUT_TYPES = ['both', 'cpf', 'cnpj'] as const

export default function SupplierFormPage() {
  const { t, i18n } = useTranslation()
  const typeName = useQueryTypeName()
  const { id } = useParams()
  const position = useAppSelector((s) => s.session.lastPosition)
  const editing = !!id
  const loaded = useGetSupplierQuery({ supplierId: id ?? '', position }, { skip: !id, refetchOnMountOrArgChange: true })
  const detail = loaded.data?.data
  const [form, set] = useLoadedForm<NonNullable<typeof detail>, SupplierForm>(EMPTY_SUPPLIER, detail, (d) => d.id, formOf)
  const [errors, setErrors] = useState<Record<string, string>>({})
  const [add, adding] = useAddSupplierMutation()
  const [edit, editingState] = useEditSupplierMutation()
  const { isLoading, error } = editing ? editingState : adding
  const saved = useSaveAndReturn('/supplier-list', t('suppliers.saved'))
  const err = (field: string) => (errors[field] ? t(errors[field]) : undefined)
  const stored = { password: detail?.passwordSet ?? false, token: detail?.tokenSet ?? false }

  async function submit() {
    const found = supplierErrors(form, stored)
    setErrors(found)
    if (Object.keys(found).length > 0) return
    saved(
      id ? await edit({ supplierId: id, supplierRequest: requestOf(form) }) : await add({ supplierRequest: requestOf(form) }),
    )
  }

  const server = error ? errorInfo(error) : null
  const takenField = (error as { data?: { field?: string } } | undefined)?.data?.field
  const serverText = !server
    ? null
    : server.code === 'duplicate' && takenField && i18n.exists(`suppliers.duplicates.${takenField}`)
      ? t(`suppliers.duplicates.${takenField}`)
      : errorText(error, t, (k) => i18n.exists(k))
  const secretHint = (isSet: boolean) => (editing ? (isSet ? t('suppliers.secretSet') : t('suppliers.secretNotSet')) : undefined)
  const text = (field: keyof SupplierForm, testId: string, extra: { type?: string; placeholder?: string; hint?: string; wide?: boolean } = {}) => (
    <TextInput
      label={t(`suppliers.${field}`)}
      value={form[field] as string}
      onChange={(value) => set({ [field]: value } as Partial<SupplierForm>)}
      error={err(field)}
      testId={testId}
      {...extra}
    />
  )

  return (
    <FormPage
      title={editing ? t('suppliers.editTitle') : t('suppliers.addTitle')}
      backTo="/supplier-list"
      backLabel={t('suppliers.backToList')}
      loading={editing && loaded.isLoading}
      loadError={editing && loaded.isError ? loaded.error : undefined}
      onSubmit={submit}
      saving={isLoading}
      submitLabel={editing ? t('suppliers.saveChanges') : t('suppliers.save')}
      savingLabel={t('suppliers.saving')}
      serverError={serverText}
      testId="supplier-form"
      submitTestId="supplier-submit"
      errorTestId="supplier-error"
    >
      <FormSection>{t('suppliers.sections.general')}</FormSection>
      {text('name', 'supplier-name')}
      {text('contact', 'supplier-contact')}
      <SelectInput
        label={t('suppliers.inputType')}
        value={form.inputType}
        onChange={(inputType) => set({ inputType })}
        options={INPUT_TYPES.map((v) => ({ value: v, label: t(`suppliers.inputTypes.${v}`) }))}
        testId="supplier-input"
      />

      <FormSection>{t('suppliers.sections.connection')}</FormSection>
      {text('url', 'supplier-url', { type: 'url', placeholder: 'https://api.fornecedor.com.br' })}
      {text('server', 'supplier-server')}
      {text('port', 'supplier-port', { type: 'number' })}
      {text('baseComplement', 'supplier-complement', { placeholder: '/api/v2' })}
      {text('route', 'supplier-route', { placeholder: '/pessoas/{document}', hint: t('suppliers.routeHint') })}
      <SelectInput
        label={t('suppliers.httpMethod')}
        value={form.httpMethod}
        onChange={(httpMethod) => set({ httpMethod })}
        options={(['GET', 'POST'] as const).map((v) => ({ value: v, label: v }))}
        testId="supplier-method"
      />
      <TextInput
        label={t('suppliers.requestBody')}
        value={form.requestBody}
        onChange={(requestBody) => set({ requestBody })}
        rows={4}
        error={err('requestBody')}
        hint={t('suppliers.requestBodyHint')}
        testId="supplier-body"
        wide
      />

      <FormSection>{t('suppliers.sections.auth')}</FormSection>
      <SelectInput
        label={t('suppliers.authMethod')}
        value={form.authMethod}
        onChange={(authMethod) => set({ authMethod })}
        options={AUTH_METHODS.map((v) => ({ value: v, label: t(`suppliers.authMethods.${v}`) }))}
        testId="supplier-auth"
      />
      {form.authMethod === 'basic' && (
        <>
          {text('username', 'supplier-username')}
          {text('password', 'supplier-password', { type: 'password', hint: secretHint(stored.password) })}
        </>
      )}
      {form.authMethod === 'prefix' && text('prefix', 'supplier-prefix')}
      {form.authMethod !== 'basic' && text('token', 'supplier-token', { type: 'password', hint: secretHint(stored.token) })}
      <CheckInput
        label={t('suppliers.embeddedInUrlBase')}
        checked={form.embeddedInUrlBase}
        onChange={(embeddedInUrlBase) => set({ embeddedInUrlBase })}
        testId="supplier-embedded"
        wide
      />
      <Typography variant="body2" color="text.secondary" sx={WIDE}>
        {t('suppliers.secretsHint')}
      </Typography>

      <FormSection>{t('suppliers.sections.usage')}</FormSection>
      <CheckGroup legend={t('suppliers.allowedQueryTypes')} error={err('allowedQueryTypes')}>
        {QUERY_TYPES.map((key) => (
          <CheckInput
            key={key}
            label={typeName(key)}
            checked={form.allowedQueryTypes.includes(key)}
            onChange={(on) =>
              set({ allowedQueryTypes: on ? [...form.allowedQueryTypes, key] : form.allowedQueryTypes.filter((k) => k !== key) })
            }
            testId={`supplier-query-${key}`}
          />
        ))}
      </CheckGroup>
      <SupplierLayoutsPicker value={form.allowedLayouts} onChange={(allowedLayouts) => set({ allowedLayouts })} />
      {text('cacheDays', 'supplier-cache', { type: 'number' })}
      {text('validityDays', 'supplier-validity', { type: 'number' })}
      {text('maxBodyKb', 'supplier-max-body', { type: 'number', hint: t('suppliers.maxBodyKbHint') })}
    </FormPage>
  )
}
