import { describe, expect, it } from 'vitest'
import { firstName, pipeItems, reportValue, showDate, showDateTime, truncate } from './format'

describe('report fields', () => {
  it.each<[unknown, string]>([
    [null, 'Nada Consta'],
    ['', 'Nada Consta'],
    ['NULL', 'Nada Consta'],
    [0, '0'],
    ['0', '0'],
    ['Ativa', 'Ativa'],
  ])('%j -> %s', (value, shown) => expect(reportValue(value)).toBe(shown))
})

describe('dates for display', () => {
  it.each<[string | null | undefined, string]>([
    [null, '--'],
    [undefined, '--'],
    ['', '--'],
    ['not a date', 'Invalid date'],
    ['2024-02-30', 'Invalid date'],
    ['2024-06-01', '01/06/2024'],
    // naive timestamps are UTC; shown in America/Sao_Paulo (UTC-3)
    ['2024-06-01 02:30:00', '31/05/2024'],
  ])('date %j -> %s', (value, shown) => expect(showDate(value)).toBe(shown))

  it.each<[string | null, string]>([
    [null, '--'],
    ['nope', 'Invalid date'],
    ['2024-06-01 15:05:09', '01/06/2024, 12:05'],
    ['2024-06-01T23:59:00Z', '01/06/2024, 20:59'],
    ['2024-06-01 00:10:00', '31/05/2024, 21:10'],
  ])('date-time %j -> %s (24-hour)', (value, shown) => expect(showDateTime(value)).toBe(shown))
})

describe('truncate', () => {
  it.each<[unknown, number, string]>([
    ['Bemtevi', 10, 'Bemtevi'],
    ['Bemtevi', 7, 'Bemtevi'],
    ['Bemtevi Consultas', 10, 'Bemtevi...'],
    ['abcdef', 5, 'ab...'],
    [null, 5, '-'],
  ])('%j at %i -> %s', (value, max, shown) => expect(truncate(value, max)).toBe(shown))
})

describe('pipe-separated labels', () => {
  it.each<[unknown, string[]]>([
    ['Sócio | Administrador|Diretor', ['Sócio', 'Administrador', 'Diretor']],
    ['único', ['único']],
    ['a||NULL| b ', ['a', 'b']],
    [null, []],
    ['NULL', []],
  ])('%j -> %j', (value, items) => expect(pipeItems(value)).toEqual(items))
})

describe('first name', () => {
  it.each<[string | null, string]>([
    ['Maria da Silva', 'Maria'],
    ['  João  ', 'João'],
    [null, ''],
  ])('%j -> %j', (name, first) => expect(firstName(name)).toBe(first))
})
