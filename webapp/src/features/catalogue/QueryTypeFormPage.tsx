import { useState } from 'react'
import { useTranslation } from 'react-i18next'
import { useParams } from 'react-router'
import FormPage from '../../components/form/FormPage'
import { useLoadedForm, useSaveAndReturn } from '../../components/form/formHooks'
import { CheckGroup, CheckInput, SelectInput, TextInput } from '../../components/form/fields'
import { useAppSelector } from '../../store/hooks'
import {
  useAddQueryTypeMutation,
  useEditQueryTypeMutation,
  useGetQueryTypeQuery,
  type QueryTypeRequest,
  type QueryTypeView,
} from '../../store/generated/bemteviApi'
import { EMPTY_QUERY_TYPE, TOGGLES, queryTypeErrors, queryTypeRequest, type Message, type QueryTypeForm } from './validation'
import './catalogue.css'

function formOf(view: QueryTypeView): QueryTypeForm {
  return {
    name: view.name,
    description: view.description,
    icon: view.icon,
    badge: view.badge,
    toggles: { ...view.toggles },
    default: view.default,
    component: view.component as QueryTypeRequest['component'],
    cacheDays: String(view.cacheDays),
    validityDays: String(view.validityDays),
  }
}

/** add-new-query/:key?: register a query type, or edit the one named. */
export default function QueryTypeFormPage() {
  const { t } = useTranslation()
  const { key } = useParams()
  const position = useAppSelector((s) => s.session.lastPosition)
  const editing = !!key
  const loaded = useGetQueryTypeQuery({ key: key ?? '', position }, { skip: !key, refetchOnMountOrArgChange: true })
  const [form, set] = useLoadedForm<QueryTypeView, QueryTypeForm>(EMPTY_QUERY_TYPE, loaded.data?.data, (d) => d.key, formOf)
  // Shown once a save was tried; from then on they follow the typing.
  const [tried, setTried] = useState(false)
  const errors: Record<string, Message> = tried ? queryTypeErrors(form) : {}
  const [add, adding] = useAddQueryTypeMutation()
  const [edit, editingState] = useEditQueryTypeMutation()
  const { isLoading, error } = editing ? editingState : adding
  const saved = useSaveAndReturn('/queries-list', t('catalogue.queryTypes.saved'))
  const err = (field: string) => {
    const found = errors[field]
    return found ? t(found.key, found.values) : undefined
  }

  async function submit() {
    const found = queryTypeErrors(form)
    setTried(true)
    if (Object.keys(found).length > 0) return
    const body = queryTypeRequest(form)
    saved(key ? await edit({ key, queryTypeRequest: body }) : await add({ queryTypeRequest: body }))
  }

  const days = (field: 'cacheDays' | 'validityDays', testId: string) => (
    <TextInput
      label={t(`catalogue.queryTypes.${field}`)}
      type="number"
      min={0}
      max={3650}
      value={form[field]}
      onChange={(value) => set({ [field]: value })}
      error={err(field)}
      testId={testId}
    />
  )
  return (
    <FormPage
      title={editing ? t('catalogue.queryTypes.editTitle') : t('catalogue.queryTypes.addTitle')}
      backTo="/queries-list"
      backLabel={t('catalogue.backToList')}
      loading={editing && loaded.isLoading}
      loadError={editing && loaded.isError ? loaded.error : undefined}
      onSubmit={submit}
      saving={isLoading}
      submitLabel={editing ? t('catalogue.saveChanges') : t('catalogue.save')}
      saveError={error}
      testId="query-type-form"
      submitTestId="query-type-save"
      errorTestId="query-type-error"
    >
      <TextInput label={t('catalogue.queryTypes.name')} value={form.name} maxLength={120} onChange={(name) => set({ name })} error={err('name')} testId="query-type-name" />
      {editing && <TextInput label={t('catalogue.queryTypes.key')} value={key ?? ''} readOnly disabled />}
      <TextInput label={t('catalogue.queryTypes.badge')} value={form.badge} maxLength={120} onChange={(badge) => set({ badge })} error={err('badge')} testId="query-type-badge" />
      <TextInput
        label={t('catalogue.queryTypes.icon')}
        value={form.icon}
        maxLength={120}
        placeholder="person"
        onChange={(icon) => set({ icon })}
        error={err('icon')}
        testId="query-type-icon"
      />
      <SelectInput
        label={t('catalogue.queryTypes.component')}
        value={form.component}
        onChange={(component: QueryTypeRequest['component']) => set({ component })}
        options={(['person', 'company'] as const).map((c) => ({ value: c, label: t(`catalogue.queryTypes.components.${c}`) }))}
        testId="query-type-component"
      />
      <TextInput
        label={t('catalogue.queryTypes.description')}
        rows={3}
        maxLength={1000}
        value={form.description}
        onChange={(description) => set({ description })}
        error={err('description')}
        testId="query-type-description"
        wide
      />
      {days('cacheDays', 'query-type-cache')}
      {days('validityDays', 'query-type-validity')}
      <CheckGroup legend={t('catalogue.queryTypes.toggles')} error={err('cpf')}>
        {TOGGLES.map((name) => (
          <CheckInput
            key={name}
            label={t(`catalogue.queryTypes.toggle.${name}`)}
            checked={form.toggles[name] === true}
            onChange={(on) => set({ toggles: { ...form.toggles, [name]: on } })}
            testId={`query-type-toggle-${name}`}
          />
        ))}
      </CheckGroup>
      <CheckGroup legend={t('catalogue.queryTypes.default')} hint={t('catalogue.queryTypes.defaultHint')}>
        <CheckInput label={t('catalogue.queryTypes.default')} checked={form.default === true} onChange={(on) => set({ default: on })} testId="query-type-default" />
      </CheckGroup>
    </FormPage>
  )
}
