import type { ReactNode } from 'react'

/** The one form field of the app's own forms: a label over its input, and the field's error under it. */
export default function FormField({ label, error, children }: { label: string; error?: string; children: ReactNode }) {
  return (
    <label className="form-field">
      <span>{label}</span>
      {children}
      {error && <small className="field-error">{error}</small>}
    </label>
  )
}
