import { describe, expect, it } from 'vitest'
import { onlyDigits } from './documents'
import { maskCnpj, maskCpf, maskDocument, maskPhone } from './masks'

describe('masks while typing', () => {
  it.each([
    ['', ''],
    ['5', '5'],
    ['5299', '529.9'],
    ['5299822', '529.982.2'],
    ['52998224725', '529.982.247-25'],
    ['529.982.247-25', '529.982.247-25'],
    ['529982247251234', '529.982.247-25'],
  ])('CPF %j -> %j', (typed, shown) => expect(maskCpf(typed)).toBe(shown))

  it.each([
    ['11', '11'],
    ['112223', '11.222.3'],
    ['11222333000181', '11.222.333/0001-81'],
  ])('CNPJ %j -> %j', (typed, shown) => expect(maskCnpj(typed)).toBe(shown))

  it.each([
    ['52998224725', '529.982.247-25'],
    ['529982247251', '52.998.224/7251'],
    ['11222333000181', '11.222.333/0001-81'],
  ])('CPF or CNPJ %j -> %j', (typed, shown) => expect(maskDocument(typed)).toBe(shown))

  it.each([
    ['', ''],
    ['1', '(1'],
    ['11', '(11'],
    ['119', '(11) 9'],
    ['1133334444', '(11) 3333-4444'],
    ['11912345678', '(11) 91234-5678'],
    ['(11) 91234-5678', '(11) 91234-5678'],
  ])('phone %j -> %j', (typed, shown) => expect(maskPhone(typed)).toBe(shown))

  // Every prefix of what may be typed: the digits stay as typed (up to the mask's length) and masking again changes nothing.
  it.each([
    ['CPF', maskCpf, 11],
    ['CNPJ', maskCnpj, 14],
    ['document', maskDocument, 14],
    ['phone', maskPhone, 11],
  ] as const)('%s mask keeps the digits and is idempotent', (_name, mask, length) => {
    const typed = '98765432109876543'
    for (let i = 0; i <= typed.length; i++) {
      const shown = mask(typed.slice(0, i))
      expect(onlyDigits(shown)).toBe(typed.slice(0, Math.min(i, length)))
      expect(mask(shown)).toBe(shown)
    }
  })
})
