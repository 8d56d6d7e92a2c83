import { useState, type ReactNode } from 'react'
import { useTranslation } from 'react-i18next'
import FormPage from '../../components/form/FormPage'
import type { Message } from './validation'

/**
 * The rules' errors of a catalogue form: shown once a save was tried, from then on following the typing.
 * `mayGo()` starts showing them and says whether the form may be sent.
 */
export function useRuleErrors<F>(form: F, rules: (form: F) => Record<string, Message>) {
  const { t } = useTranslation()
  const [tried, setTried] = useState(false)
  const errors: Record<string, Message> = tried ? rules(form) : {}
  const err = (field: string) => {
    const found = errors[field]
    if (!found) return undefined
    // A message's values are i18n keys too (a row's direction, say).
    const values = found.values ? Object.fromEntries(Object.entries(found.values).map(([k, v]) => [k, t(v)])) : undefined
    return t(found.key, values)
  }
  const mayGo = () => {
    setTried(true)
    return Object.keys(rules(form)).length === 0
  }
  return { err, mayGo }
}

/** A save's state, as the add and edit mutations give it. */
type Saving = { isLoading: boolean; error?: unknown }

/** The add/edit screens of the catalogue (query types, layouts): one shell, named after its section. */
export default function CatalogueFormPage({
  section,
  listPath,
  testIdPrefix,
  editing,
  loaded,
  onSubmit,
  saving,
  children,
}: {
  section: 'layouts' | 'queryTypes'
  listPath: string
  /** `<prefix>-form`, `-save` and `-error` for the tests. */
  testIdPrefix: string
  editing: boolean
  /** The edited record's query. */
  loaded: { isLoading: boolean; isError: boolean; error?: unknown }
  onSubmit: () => unknown
  /** The add or the edit mutation's state, whichever the screen does. */
  saving: Saving
  children: ReactNode
}) {
  const { t } = useTranslation()
  return (
    <FormPage
      title={editing ? t(`catalogue.${section}.editTitle`) : t(`catalogue.${section}.addTitle`)}
      backTo={listPath}
      backLabel={t('catalogue.backToList')}
      loading={editing && loaded.isLoading}
      loadError={editing && loaded.isError ? loaded.error : undefined}
      onSubmit={onSubmit}
      saving={saving.isLoading}
      submitLabel={editing ? t('catalogue.saveChanges') : t('catalogue.save')}
      saveError={saving.error}
      testId={`${testIdPrefix}-form`}
      submitTestId={`${testIdPrefix}-save`}
      errorTestId={`${testIdPrefix}-error`}
    >
      {children}
    </FormPage>
  )
}
