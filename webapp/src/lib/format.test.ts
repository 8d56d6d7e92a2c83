import { describe, expect, it } from 'vitest'
import { display, firstName, formatDateBR, formatDateTimeBR } from './format'

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
})

it('first name is the first word', () => {
  expect(firstName('  Ana Maria Souza ')).toBe('Ana')
  expect(firstName(null)).toBe('')
})
