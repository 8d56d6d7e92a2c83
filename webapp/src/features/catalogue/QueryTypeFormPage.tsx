import { useTranslation } from 'react-i18next'
import { useParams } from 'react-router'
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
import { EMPTY_QUERY_TYPE, TOGGLES, queryTypeErrors, queryTypeRequest, type QueryTypeForm } from './validation'
import CatalogueFormPage from './CatalogueFormPage'
import QueryTypeIconPicker from './QueryTypeIconPicker'
import { useRuleErrors } from './ruleErrors'
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
  const { err, mayGo } = useRuleErrors(form, queryTypeErrors)
  const [add, adding] = useAddQueryTypeMutation()
  const [edit, editingState] = useEditQueryTypeMutation()
  const saved = useSaveAndReturn('/queries-list', t('catalogue.queryTypes.saved'))

  async function submit() {
    if (!mayGo()) return
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
    <CatalogueFormPage
      section="queryTypes"
      listPath="/queries-list"
      testIdPrefix="query-type"
      editing={editing}
      loaded={loaded}
      onSubmit={submit}
      saving={editing ? editingState : adding}
    >
      <TextInput label={t('catalogue.queryTypes.name')} value={form.name} maxLength={120} onChange={(name) => set({ name })} error={err('name')} testId="query-type-name" />
      {editing && <TextInput label={t('catalogue.queryTypes.key')} value={key ?? ''} readOnly disabled />}
      <TextInput label={t('catalogue.queryTypes.badge')} value={form.badge} maxLength={120} onChange={(badge) => set({ badge })} error={err('badge')} testId="query-type-badge" />
      <QueryTypeIconPicker value={form.icon} onChange={(icon) => set({ icon })} error={err('icon')} />
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
    </CatalogueFormPage>
  )
}
