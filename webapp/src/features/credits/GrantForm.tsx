import { useState, type FormEvent } from 'react'
import { useTranslation } from 'react-i18next'
import { errorText } from '../../components/errorText'
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
    <form className="grant-form" onSubmit={submit} noValidate data-testid="grant-form">
      <p>{t('credits.grant.to', { name: child.name })}</p>
      <label>
        {t('credits.category')}
        <select value={category} onChange={(e) => setCategory(e.target.value as CategoryName)}>
          {CATEGORIES.map((c) => (
            <option key={c} value={c}>
              {t(`credits.categories.${c}`)}
            </option>
          ))}
        </select>
      </label>
      <label>
        {t('credits.grant.amount')}
        <input
          type="number"
          step={1}
          value={amount}
          onChange={(e) => setAmount(e.target.value)}
          aria-invalid={!!invalid}
          data-testid="grant-amount"
        />
      </label>
      <p className="muted small">{t('credits.grant.hint')}</p>
      {(invalid || message) && (
        <p className="field-error" role="alert" data-testid="grant-error">
          {invalid ?? message}
        </p>
      )}
      <div className="actions">
        <button type="button" className="btn" onClick={onDone}>
          {t('credits.grant.cancel')}
        </button>
        <button type="submit" className="btn btn-primary" disabled={isLoading} data-testid="grant-submit">
          {isLoading ? t('credits.grant.saving') : t('credits.grant.submit')}
        </button>
      </div>
    </form>
  )
}
