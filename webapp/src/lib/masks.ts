import { onlyDigits } from './documents'

/** Lays `digits` into `pattern` ('#' a digit), stopping where the digits end (a mask applied while typing). */
function lay(digits: string, pattern: string): string {
  let out = ''
  let i = 0
  for (const c of pattern) {
    if (i >= digits.length) break
    if (c === '#') out += digits[i++]
    else out += c
  }
  return out
}

/** A CPF as it is typed: 000.000.000-00 (11 digits at most). */
export function maskCpf(value: string): string {
  return lay(onlyDigits(value).slice(0, 11), '###.###.###-##')
}

/** A CNPJ as it is typed: 00.000.000/0000-00 (14 digits at most). */
export function maskCnpj(value: string): string {
  return lay(onlyDigits(value).slice(0, 14), '##.###.###/####-##')
}

/** A CPF or a CNPJ as it is typed: the CPF's mask up to 11 digits, the CNPJ's past them. */
export function maskDocument(value: string): string {
  const digits = onlyDigits(value)
  return digits.length > 11 ? maskCnpj(digits) : maskCpf(digits)
}

/** A Brazilian phone as it is typed: (00) 0000-0000, or (00) 00000-0000 with the eleventh digit. */
export function maskPhone(value: string): string {
  const digits = onlyDigits(value).slice(0, 11)
  if (digits.length <= 2) return digits.length ? `(${digits}` : ''
  return lay(digits, digits.length === 11 ? '(##) #####-####' : '(##) ####-####')
}
