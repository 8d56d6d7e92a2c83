import { useState, type FormEvent } from 'react'
import { useTranslation } from 'react-i18next'
import Alert from '@mui/material/Alert'
import Box from '@mui/material/Box'
import Button from '@mui/material/Button'
import Paper from '@mui/material/Paper'
import Typography from '@mui/material/Typography'
import { errorText } from '../../components/errorText'
import { SelectInput, TextInput } from '../../components/form/fields'
import { WIDE } from '../../components/form/formHooks'
import { errorInfo } from '../../lib/errors'
import { useGrantMutation, type GroupBalances } from '../../store/generated/bemteviApi'
import { CATEGORIES, type CategoryName } from './categories'

/** Give credits to a child group, or take unused ones back (negative amount). */
export default function GrantForm({ child, onDone }: { child: GroupBalances; onDone: () => void }) {
  const { t, i18n } = useTranslation()
  const [category, setCategory] = useState<CategoryName>('unit')
  const [amount, setAmount] = useState('')
  const [invalid, setInvalid] = useState<string | null>(null)
  const [grant, { isLoading, error, reset }] = useGrantMutation()

  async function submit(event: FormEvent) {
    event.preventDefault()
    reset()
    const value = Number(amount)
    if (!amount.trim() || !Number.isInteger(value) || value === 0) {
      setInvalid(t('credits.grant.amountInvalid'))
      return
    }
    setInvalid(null)
    const result = await grant({ grantRequest: { groupId: child.id, category, amount: value } })
    if (!('error' in result)) onDone()
  }

  const info = error ? errorInfo(error) : null
  const message =
    info?.code === 'not_enough_to_provide'
      ? t('credits.grant.notEnoughToProvide', { category: t(`credits.categories.${category}`) })
      : error
        ? errorText(error, t, (k) => i18n.exists(k))
        : null

  return (
    <Paper
      component="form"
      variant="outlined"
      onSubmit={submit}
      noValidate
      data-testid="grant-form"
      className="grant-form"
      sx={{ p: 2, display: 'grid', gap: 2, gridTemplateColumns: { xs: 'minmax(0, 1fr)', sm: 'repeat(2, minmax(0, 1fr))' } }}
    >
      <Typography sx={WIDE}>{t('credits.grant.to', { name: child.name })}</Typography>
      <SelectInput<CategoryName>
        label={t('credits.category')}
        value={category}
        onChange={setCategory}
        options={CATEGORIES.map((c) => ({ value: c, label: t(`credits.categories.${c}`) }))}
        testId="grant-category"
      />
      <TextInput
        type="number"
        label={t('credits.grant.amount')}
        value={amount}
        onChange={setAmount}
        error={invalid ?? undefined}
        hint={t('credits.grant.hint')}
        testId="grant-amount"
      />
      {message && (
        <Alert severity="error" role="alert" sx={WIDE} data-testid="grant-error">
          {message}
        </Alert>
      )}
      <Box sx={{ ...WIDE, display: 'flex', gap: 1, flexWrap: 'wrap' }}>
        <Button type="submit" variant="contained" disabled={isLoading} data-testid="grant-submit">
          {isLoading ? t('credits.grant.saving') : t('credits.grant.submit')}
        </Button>
        <Button onClick={onDone}>{t('credits.grant.cancel')}</Button>
      </Box>
    </Paper>
  )
}
