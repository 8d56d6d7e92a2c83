import { useTranslation } from 'react-i18next'
import { CheckGroup, CheckInput, TextInput } from '../../components/form/fields'
import { allowedQueryTypes, allowedToggles, TOGGLE_NAMES } from '../../lib/brandRules'
import { useQueryTypeName } from '../../lib/queryTypeName'
import type { CustomerDetail, LayoutView, Toggles } from '../../store/generated/bemteviApi'
import { CATEGORIES, type Category, type CustomerForm } from './validation'

type Setters = {
  form: CustomerForm
  set: (patch: Partial<CustomerForm>) => void
  /** The field's error in the reader's language, if any. */
  err: (field: string) => string | undefined
}

/** One number box a credit category, for the credits given with the customer (the caller lays them out). */
export function CreditQuantityInputs({ form, set, err, hint }: Setters & { hint?: (category: Category) => string | undefined }) {
  const { t } = useTranslation()
  return CATEGORIES.map((category) => (
    <TextInput
      key={category}
      label={t(`credits.categories.${category}`)}
      type="number"
      min={0}
      value={String(form.quantities[category])}
      onChange={(value) => set({ quantities: { ...form.quantities, [category]: Number(value) } })}
      error={err(`quantities.${category}`)}
      hint={hint?.(category)}
      testId={`customer-quantity-${category}`}
    />
  ))
}

/**
 * What a customer may do: its query types and layouts (never more than its parent's), its options and, once it
 * exists, its permissions. The one-page form and the set-up's permissions step show the same rows.
 */
export default function CustomerAccessFields({
  form,
  set,
  err,
  offered,
  layouts,
  detail,
  toggles,
  setToggles,
  showToggles,
  testIdPrefix,
}: Setters & {
  /** The query types the signed-in group may give (the catalogue's enabled, active ones). */
  offered: { key: string; name: string }[]
  /** The platform's layouts the signed-in group was given. */
  layouts: LayoutView[]
  /** The customer being edited: its parent's grants limit what may be ticked. */
  detail: CustomerDetail | undefined
  toggles: Toggles
  setToggles: (toggles: Toggles) => void
  showToggles: boolean
  /** Names the query type and access boxes for the tests (the set-up's). */
  testIdPrefix?: string
}) {
  const { t } = useTranslation()
  const typeName = useQueryTypeName()
  const mayToggle = allowedToggles(detail?.parentToggles ?? {})
  const offeredKeys = offered.map((q) => q.key)
  // A type the customer has that the catalogue no longer offers (inactive) still shows, to be unticked.
  const shownTypes = [
    ...offered.map((q) => ({ key: q.key, name: typeName(q.key, q.name) })),
    ...form.enabledQueryTypes.filter((k) => !offeredKeys.includes(k)).map((k) => ({ key: k, name: typeName(k) })),
  ]
  const mayQuery = allowedQueryTypes(offeredKeys, detail ? detail.parentEnabledQueryTypes : null)
  const mayLayout = allowedQueryTypes(
    layouts.map((l) => l.id),
    detail ? detail.parentEnabledLayouts : null,
  )
  const chosenLayouts = form.enabledLayouts ?? []
  const testId = (name: string) => (testIdPrefix ? `${testIdPrefix}-${name}` : undefined)
  return (
    <>
      <CheckGroup legend={t('customers.queryTypes')} error={err('enabledQueryTypes')}>
        {shownTypes.map(({ key, name }) => (
          <CheckInput
            key={key}
            label={name}
            checked={form.enabledQueryTypes.includes(key)}
            disabled={!mayQuery.includes(key) && !form.enabledQueryTypes.includes(key)}
            title={!mayQuery.includes(key) ? t('customers.parentLacks') : undefined}
            onChange={(on) =>
              set({ enabledQueryTypes: on ? [...form.enabledQueryTypes, key] : form.enabledQueryTypes.filter((k) => k !== key) })
            }
            testId={testId(`query-${key}`)}
          />
        ))}
      </CheckGroup>
      {layouts.length > 0 && (
        <div data-testid="customer-layouts" style={{ gridColumn: '1 / -1', minWidth: 0 }}>
          <CheckGroup legend={t('customers.layouts')}>
            {layouts.map((layout) => (
              <CheckInput
                key={layout.id}
                label={`${layout.fileName} (${layout.acceptedExtension.toUpperCase()} → ${layout.returnExtension.toUpperCase()})`}
                checked={chosenLayouts.includes(layout.id)}
                disabled={!mayLayout.includes(layout.id) && !chosenLayouts.includes(layout.id)}
                title={!mayLayout.includes(layout.id) ? t('customers.parentLacks') : undefined}
                onChange={(on) => set({ enabledLayouts: on ? [...chosenLayouts, layout.id] : chosenLayouts.filter((k) => k !== layout.id) })}
                testId="customer-layout"
              />
            ))}
          </CheckGroup>
        </div>
      )}
      <CheckGroup legend={t('customers.options')} error={err('access')}>
        <CheckInput label={t('customers.defaultQuery')} checked={form.defaultQuery} onChange={(defaultQuery) => set({ defaultQuery })} />
        <CheckInput label={t('customers.consultProtest')} checked={form.consultProtest} onChange={(consultProtest) => set({ consultProtest })} />
        <CheckInput label={t('customers.panel')} checked={form.panelAccess} onChange={(panelAccess) => set({ panelAccess })} testId={testId('panel')} />
        <CheckInput label={t('customers.api')} checked={form.apiAccess} onChange={(apiAccess) => set({ apiAccess })} testId={testId('api')} />
      </CheckGroup>
      {showToggles && (
        <div data-testid="customer-toggles" style={{ gridColumn: '1 / -1', minWidth: 0 }}>
          <CheckGroup legend={t('customers.permissions')}>
            {TOGGLE_NAMES.map((name) => (
              <CheckInput
                key={name}
                label={
                  <>
                    {t(`customers.toggles.${name}`)}
                    {!mayToggle[name] && <small className="muted"> ({t('customers.parentLacks')})</small>}
                  </>
                }
                checked={toggles[name] === true}
                disabled={!mayToggle[name] && toggles[name] !== true}
                onChange={(on) => setToggles({ ...toggles, [name]: on })}
                testId={`customer-toggle-${name}`}
              />
            ))}
          </CheckGroup>
        </div>
      )}
    </>
  )
}
