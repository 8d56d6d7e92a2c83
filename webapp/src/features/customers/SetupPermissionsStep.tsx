import type { ComponentProps } from 'react'
import { useTranslation } from 'react-i18next'
import Box from '@mui/material/Box'
import { CheckGroup } from '../../components/form/fields'
import CustomerAccessFields, { CreditQuantityInputs } from './CustomerAccessFields'
import SetupStepForm, { type StepFormProps } from './SetupStepForm'
import type { Category } from './validation'

/**
 * The set-up's second step: the credits given now (from the signed-in group's balance) and what the customer may
 * do, the same rows as the one-page form's.
 */
export default function SetupPermissionsStep({
  onSubmit,
  saving,
  failure,
  onBack,
  ...access
}: StepFormProps & { onBack: () => void } & Omit<ComponentProps<typeof CustomerAccessFields>, 'showToggles' | 'testIdPrefix'>) {
  const { t } = useTranslation()
  const { detail } = access
  const balance = (category: Category) => {
    const figures = detail?.credits.find((c) => c.category === category)
    if (!figures) return undefined
    return t('customers.setup.balance', { value: figures.available === null ? t('customers.setup.unlimited') : figures.available })
  }
  return (
    <SetupStepForm
      hint={t('customers.setup.permissionsHint')}
      onSubmit={onSubmit}
      saving={saving}
      ready
      failure={failure}
      onBack={onBack}
      testId="setup-permissions"
    >
      <CheckGroup legend={t('customers.setup.give')} hint={t('customers.setup.giveHint')}>
        <Box
          sx={{
            pt: 1,
            width: '100%',
            display: 'grid',
            gap: 2,
            gridTemplateColumns: { xs: 'minmax(0, 1fr)', sm: 'repeat(2, minmax(0, 1fr))', lg: 'repeat(4, minmax(0, 1fr))' },
          }}
        >
          <CreditQuantityInputs form={access.form} set={access.set} err={access.err} hint={balance} />
        </Box>
      </CheckGroup>
      {/* The customer's permissions show once its detail (with the toggles the server chose) is in. */}
      <CustomerAccessFields {...access} showToggles={!!detail} testIdPrefix="setup" />
    </SetupStepForm>
  )
}
