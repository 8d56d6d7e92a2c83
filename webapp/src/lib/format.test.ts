import { describe, expect, it } from 'vitest'
import { display, firstName, formatCnpj, formatCpf, formatDateBR, formatDateTimeBR, formatPhone, showDate, showDateTime } from './format'

describe('display rules', () => {
  it.each<[unknown, string]>([
    [null, '-'],
    [undefined, '-'],
    ['', '-'],
    ['  ', '-'],
    ['NULL', '-'],
    ['null', '-'],
    [0, '0'],
    ['0', '0'],
    ['Maria', 'Maria'],
    [NaN, '-'],
  ])('%j -> %s', (value, shown) => expect(display(value)).toBe(shown))
})

describe('dates', () => {
  it('formats pt-BR dates', () => {
    expect(formatDateBR('1985-03-07')).toBe('07/03/1985')
    expect(formatDateBR(null)).toBe('--')
    expect(formatDateBR('1985-02-30')).toBeNull()
    expect(formatDateBR('ontem')).toBeNull()
  })
  it('treats a naive timestamp as UTC and shows it in America/Sao_Paulo', () => {
    expect(formatDateBR('2024-01-02 01:00:00')).toBe('01/01/2024')
    expect(formatDateTimeBR('2024-01-02 01:00:00')).toBe('01/01/2024, 22:00')
  })
  it('writes month first in en-US and keeps the missing and invalid rules', () => {
    expect(showDate('1985-03-07', 'en-US')).toBe('03/07/1985')
    expect(showDate('1985-03-07', 'pt-BR')).toBe('07/03/1985')
    expect(showDateTime('2024-06-01T15:30:00Z', 'en-US')).toBe('06/01/2024, 12:30')
    expect(showDateTime('2024-06-01T15:30:00Z', 'pt-BR')).toBe('01/06/2024, 12:30')
    expect(showDate(null, 'en-US')).toBe('--')
    expect(showDate('1985-02-30', 'en-US')).toBe('Invalid date')
    expect(showDateTime('nunca', 'en-US')).toBe('Invalid date')
  })
})

describe('documents and phones', () => {
  it('punctuates CPF, CNPJ and phones, and leaves what it cannot read', () => {
    expect(formatCpf('52998224725')).toBe('529.982.247-25')
    expect(formatCnpj('12345678000195')).toBe('12.345.678/0001-95')
    expect(formatCnpj('12.345.678/0001-95')).toBe('12.345.678/0001-95')
    expect(formatPhone('11987654321')).toBe('(11) 98765-4321')
    expect(formatPhone('1132654321')).toBe('(11) 3265-4321')
    expect(formatPhone('123')).toBe('123')
  })
})

it('first name is the first word', () => {
  expect(firstName('  Ana Maria Souza ')).toBe('Ana')
  expect(firstName(null)).toBe('')
})
