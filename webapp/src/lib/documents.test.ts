import { describe, expect, it } from 'vitest'
import { checkDocument, formatCnpj, formatCpf, isValidCnpj, isValidCpf } from './documents'

describe('documents', () => {
  it.each([
    ['529.982.247-25', true],
    ['52998224725', true],
    ['111.444.777-35', true],
    ['529.982.247-24', false],
    ['111.111.111-11', false],
    ['1234567890', false],
  ])('CPF %s -> %s', (cpf, ok) => expect(isValidCpf(cpf)).toBe(ok))

  it.each([
    ['11.222.333/0001-81', true],
    ['11222333000181', true],
    ['11.222.333/0001-80', false],
    ['00000000000000', false],
  ])('CNPJ %s -> %s', (cnpj, ok) => expect(isValidCnpj(cnpj)).toBe(ok))

  it('classifies by length and check digits', () => {
    expect(checkDocument('529.982.247-25')).toEqual({ ok: true, digits: '52998224725', type: 'cpf' })
    expect(checkDocument('11.222.333/0001-81')).toEqual({ ok: true, digits: '11222333000181', type: 'cnpj' })
    expect(checkDocument('123')).toEqual({ ok: false, reason: 'invalid_document_type' })
    expect(checkDocument('529.982.247-26')).toEqual({ ok: false, reason: 'invalid_document' })
  })

  it('formats', () => {
    expect(formatCpf('52998224725')).toBe('529.982.247-25')
    expect(formatCnpj('11222333000181')).toBe('11.222.333/0001-81')
  })
})
