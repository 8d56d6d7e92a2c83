import { useTranslation } from 'react-i18next'
import CustomerCompanyFields from './CustomerCompanyFields'
import SetupStepForm, { type StepFormProps } from './SetupStepForm'
import type { CustomerForm } from './validation'

/** The set-up's first step: the company; saving it registers the customer (or saves the one being finished). */
export default function SetupCompanyStep({
  form,
  set,
  err,
  registered,
  ready,
  ...step
}: StepFormProps & {
  form: CustomerForm
  set: (patch: Partial<CustomerForm>) => void
  err: (field: string) => string | undefined
  /** The customer exists already: its e-mail, where the invitation went, stays. */
  registered: boolean
  ready: boolean
}) {
  const { t } = useTranslation()
  return (
    <SetupStepForm
      {...step}
      hint={registered ? t('customers.setup.companyEditHint') : t('customers.setup.companyHint')}
      ready={ready}
      testId="setup-company"
    >
      <CustomerCompanyFields form={form} set={set} err={err} emailLocked={registered} urlHint={t('customers.setup.domainHint')} />
    </SetupStepForm>
  )
}
