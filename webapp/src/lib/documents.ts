export type DocumentCheck =
  | { ok: true; digits: string; type: 'cpf' | 'cnpj' }
  | { ok: false; reason: 'invalid_document_type' | 'invalid_document' }

export const onlyDigits = (value: string): string => value.replace(/\D/g, '')

export function isValidCpf(value: string): boolean {
  const d = onlyDigits(value)
  if (d.length !== 11 || /^(\d)\1{10}$/.test(d)) return false
  const nums = d.split('').map(Number)
  for (const len of [9, 10]) {
    let sum = 0
    for (let i = 0; i < len; i++) sum += nums[i] * (len + 1 - i)
    const check = ((sum * 10) % 11) % 10
    if (check !== nums[len]) return false
  }
  return true
}

export function isValidCnpj(value: string): boolean {
  const d = onlyDigits(value)
  if (d.length !== 14 || /^0{14}$/.test(d) || /^(\d)\1{13}$/.test(d)) return false
  const nums = d.split('').map(Number)
  const weights1 = [5, 4, 3, 2, 9, 8, 7, 6, 5, 4, 3, 2]
  const weights2 = [6, ...weights1]
  for (const weights of [weights1, weights2]) {
    const len = weights.length
    const sum = weights.reduce((acc, w, i) => acc + w * nums[i], 0)
    const rest = sum % 11
    const check = rest < 2 ? 0 : 11 - rest
    if (check !== nums[len]) return false
  }
  return true
}

/** Client-side check of a CPF (11 digits) or CNPJ (14 digits), punctuation allowed. */
export function checkDocument(value: string): DocumentCheck {
  const digits = onlyDigits(value)
  if (digits.length === 11) return isValidCpf(digits) ? { ok: true, digits, type: 'cpf' } : { ok: false, reason: 'invalid_document' }
  if (digits.length === 14) return isValidCnpj(digits) ? { ok: true, digits, type: 'cnpj' } : { ok: false, reason: 'invalid_document' }
  return { ok: false, reason: 'invalid_document_type' }
}

export function formatCpf(value: string): string {
  const d = onlyDigits(value)
  return d.length === 11 ? d.replace(/^(\d{3})(\d{3})(\d{3})(\d{2})$/, '$1.$2.$3-$4') : value
}

export function formatCnpj(value: string): string {
  const d = onlyDigits(value)
  return d.length === 14 ? d.replace(/^(\d{2})(\d{3})(\d{3})(\d{4})(\d{2})$/, '$1.$2.$3/$4-$5') : value
}

export function formatDocument(value: string | null | undefined): string {
  if (!value) return ''
  const d = onlyDigits(value)
  if (d.length === 11) return formatCpf(d)
  if (d.length === 14) return formatCnpj(d)
  return value
}

export function formatPhone(value: string | null | undefined): string {
  if (!value) return ''
  const d = onlyDigits(value)
  if (d.length === 11) return d.replace(/^(\d{2})(\d{5})(\d{4})$/, '($1) $2-$3')
  if (d.length === 10) return d.replace(/^(\d{2})(\d{4})(\d{4})$/, '($1) $2-$3')
  return value
}

export function formatZip(value: string | null | undefined): string {
  if (!value) return ''
  const d = onlyDigits(value)
  return d.length === 8 ? d.replace(/^(\d{5})(\d{3})$/, '$1-$2') : value
}

/** An e-mail address as the sign-in and registration forms accept it. */
export const EMAIL_PATTERN = /^[A-Za-z0-9._-]+@[A-Za-z0-9-]+(\.[A-Za-z0-9-]+)*\.[A-Za-z]{2,}$/
