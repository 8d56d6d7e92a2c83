import { useState } from 'react'
import { useTranslation } from 'react-i18next'
import { Link as RouterLink, useParams } from 'react-router'
import Button from '@mui/material/Button'
import Paper from '@mui/material/Paper'
import Stack from '@mui/material/Stack'
import Typography from '@mui/material/Typography'
import FormPage from '../../components/form/FormPage'
import { useSaveAndReturn } from '../../components/form/formHooks'
import { CheckGroup } from '../../components/form/fields'
import type { AnyError } from '../../lib/errors'
import BrandEditor from '../../components/brand/BrandEditor'
import TwoFactorSwitch from '../../components/TwoFactorSwitch'
import { useEditCustomerMutation, useRegisterCustomerMutation, type RegisteredCustomerResponse } from '../../store/generated/bemteviApi'
import CustomerAccessFields, { CreditQuantityInputs } from './CustomerAccessFields'
import CustomerCompanyFields from './CustomerCompanyFields'
import { customerServerText } from './refusals'
import { useCustomerForm } from './useCustomerForm'
import { customerErrors, editRequestOf, type CustomerForm } from './validation'

export default function CustomerFormPage() {
  const { t, i18n } = useTranslation()
  const { id } = useParams()
  const editing = !!id
  const { loaded, form, setForm, toggles, access } = useCustomerForm({
    customerId: id ?? null,
    startsNew: !editing,
    keepTyped: false,
  })
  const [errors, setErrors] = useState<Record<string, string>>({})
  const [registered, setRegistered] = useState<RegisteredCustomerResponse | null>(null)
  const [register, registering] = useRegisterCustomerMutation()
  const [edit, editingState] = useEditCustomerMutation()
  const { isLoading, error } = editing ? editingState : registering
  const set = (patch: Partial<CustomerForm>) => setForm((f) => ({ ...f, ...patch }))
  const saved = useSaveAndReturn('/customer-list', t('customers.saved'))
  const err = (field: string) => (errors[field] ? t(errors[field]) : undefined)

  async function submit() {
    const found = customerErrors(form)
    if (editing) for (const key of Object.keys(found)) if (key.startsWith('quantities.')) delete found[key]
    setErrors(found)
    if (Object.keys(found).length > 0) return
    if (id) {
      saved(await edit({ groupId: id, customerEditRequest: editRequestOf(form, toggles) }))
      return
    }
    // The owner's invitation is written in the language of whoever registers the customer.
    const locale = i18n.language === 'en-US' ? 'en-US' : 'pt-BR'
    const result = await register({ customerRequest: { ...form, locale } })
    if ('data' in result && result.data) setRegistered(result.data)
  }

  if (registered)
    return (
      <Stack spacing={2}>
        <Typography variant="h5" component="h1" sx={{ fontWeight: 600 }}>
          {t('customers.registeredTitle')}
        </Typography>
        <Paper variant="outlined" sx={{ p: { xs: 2, sm: 3 } }} data-testid="customer-registered">
          {/* No password to pass on: the owner chooses theirs from the invitation's link. */}
          <p data-testid="customer-invited">{t('customers.invitedText', { email: registered.data.invitationSentTo })}</p>
          <Typography variant="body2" color="text.secondary" sx={{ mb: 2 }}>
            {t('customers.invitedHint')}
          </Typography>
          <Stack direction="row" sx={{ gap: 1, flexWrap: 'wrap', mb: 2 }}>
            {/* The next steps of setting the customer up: its brand (and credits), then its users. */}
            <Button component={RouterLink} to={`/add-new-customer/${registered.data.uniqueKey}/${registered.data.id}`} variant="outlined" data-testid="customer-next-edit">
              {t('customers.nextEdit')}
            </Button>
            <Button component={RouterLink} to={`/users/${registered.data.uniqueKey}/${registered.data.id}`} variant="outlined" data-testid="customer-next-users">
              {t('customers.users')}
            </Button>
          </Stack>
          <Button component={RouterLink} to="/customer-list" variant="contained">
            {t('customers.backToList')}
          </Button>
        </Paper>
      </Stack>
    )

  const serverText = error ? customerServerText(error as AnyError, t, (k) => i18n.exists(k)) : null
  return (
    <FormPage
      title={editing ? t('customers.editTitle') : t('customers.addTitle')}
      backTo="/customer-list"
      backLabel={t('customers.backToList')}
      loading={editing && loaded.isLoading}
      loadError={editing && loaded.isError ? loaded.error : undefined}
      onSubmit={submit}
      saving={isLoading}
      submitLabel={editing ? t('customers.saveChanges') : t('customers.save')}
      savingLabel={t('credits.grant.saving')}
      serverError={serverText}
      testId="customer-form"
      submitTestId="customer-submit"
      errorTestId="customer-error"
      aside={
        editing &&
        id && (
          <Paper variant="outlined" sx={{ p: { xs: 2, sm: 3 } }} data-testid="customer-brand">
            <Typography variant="h6" component="h2">
              {t('brand.section')}
            </Typography>
            <Typography variant="body2" color="text.secondary" sx={{ mb: 2 }}>
              {t('brand.sectionHint')}
            </Typography>
            <BrandEditor groupId={id} />
          </Paper>
        )
      }
    >
      <CustomerCompanyFields form={form} set={set} err={err} />
      <CheckGroup legend={t('customers.quantities')} hint={editing ? t('customers.quantitiesOnEdit') : undefined}>
        {!editing && (
          <Stack direction={{ xs: 'column', sm: 'row' }} spacing={2} sx={{ pt: 1, width: '100%' }}>
            <CreditQuantityInputs form={form} set={set} err={err} />
          </Stack>
        )}
      </CheckGroup>
      <CustomerAccessFields form={form} set={set} err={err} {...access} showToggles={editing} />
      {editing && id && (
        // Saved on its own as it is switched (the group's setting, not a field of this form).
        <div style={{ gridColumn: '1 / -1' }}>
          <TwoFactorSwitch groupId={id} />
        </div>
      )}
    </FormPage>
  )
}
