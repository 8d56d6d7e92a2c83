import type { ReactNode } from 'react'
import { useTranslation } from 'react-i18next'
import FormPage from '../../components/form/FormPage'

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
