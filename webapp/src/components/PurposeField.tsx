import { useId } from 'react'
import { useTranslation } from 'react-i18next'
import TextField from '@mui/material/TextField'
import { SUGGESTED_PURPOSES } from '../lib/purpose'

interface Props {
  value: string
  onChange: (value: string) => void
  required: boolean
  maxLength: number
  /** A problem found on submit (`purposeProblem`), shown under the field. */
  problem: 'required' | 'tooLong' | null
  testId: string
  fullWidth?: boolean
}

/** What a consultation is for (LGPD art. 6 I): shown to the data subject in the data-subject report. Optional unless
 * the group requires it; free text, with the terms' legitimate purposes suggested. */
export default function PurposeField({ value, onChange, required, maxLength, problem, testId, fullWidth }: Props) {
  const { t } = useTranslation()
  const listId = useId()
  const error = problem === 'required' ? t('purpose.required') : problem === 'tooLong' ? t('purpose.tooLong', { max: maxLength }) : null
  return (
    <>
      <TextField
        label={required ? t('purpose.label') : t('purpose.labelOptional')}
        required={required}
        value={value}
        onChange={(e) => onChange(e.target.value)}
        placeholder={t('purpose.placeholder')}
        error={!!error}
        helperText={error ?? t('purpose.help')}
        fullWidth={fullWidth}
        sx={fullWidth ? undefined : { flex: { sm: '2 1 18rem' }, minWidth: 0 }}
        slotProps={{
          inputLabel: { shrink: true },
          htmlInput: { maxLength: maxLength * 2, list: listId, autoComplete: 'off', 'data-testid': testId, 'aria-invalid': !!error },
          formHelperText: { 'data-testid': `${testId}-help` } as object,
        }}
      />
      <datalist id={listId}>
        {SUGGESTED_PURPOSES.map((key) => (
          <option key={key} value={t(`purpose.suggestions.${key}`)} />
        ))}
      </datalist>
    </>
  )
}
