import { useState } from 'react'
import { useNavigate } from 'react-router'
import { useNotify } from '../feedback'

/** Spans both columns of the form grid (FormPage lays fields out in one column on phones, two above). */
export const WIDE = { gridColumn: '1 / -1' } as const

/**
 * The form of an add/edit screen: empty when adding, filled once from the loaded record when editing
 * (while rendering, not in an effect), so a later answer of the same record never overwrites typing.
 */
export function useLoadedForm<D, F>(empty: F, detail: D | undefined, idOf: (d: D) => string, formOf: (d: D) => F) {
  const [form, setForm] = useState<F>(empty)
  const [filledFor, setFilledFor] = useState<string | null>(null)
  if (detail && idOf(detail) !== filledFor) {
    setFilledFor(idOf(detail))
    setForm(formOf(detail))
  }
  const set = (patch: Partial<F>) => setForm((f) => ({ ...f, ...patch }))
  return [form, set, setForm] as const
}

/** After a save: on success, say so and go back to the list; a refusal stays on the form (FormPage shows it). */
export function useSaveAndReturn(listPath: string, savedMessage: string) {
  const notify = useNotify()
  const navigate = useNavigate()
  return (result: { data?: unknown } | { error: unknown }) => {
    if ('data' in result && result.data) {
      notify({ type: 'positive', message: savedMessage })
      void navigate(listPath)
    }
  }
}
