import { describe, expect, it } from 'vitest'
import { anyFilled, criteriaOf, emptyCriteria, formOf, resultListPath } from './criteria'

describe('advanced query criteria', () => {
  it('refuses an empty form (blank fields are empty)', () => {
    expect(anyFilled(emptyCriteria())).toBe(false)
    expect(anyFilled({ name: '  ', city: '' })).toBe(false)
    expect(anyFilled({ telephone: '(11) 98765-4321' })).toBe(true)
  })

  it('puts each field in its place of the path and reads it back', () => {
    const criteria = { ...emptyCriteria(), name: 'José da Silva', state: 'SP', birth: '06/09/1997' }
    const path = resultListPath(criteria)
    expect(path).toBe('/advanced-query-result-list/Jos%C3%A9%20da%20Silva/-/-/SP/-/-/-/06%2F09%2F1997')
    const segments = path.split('/').slice(2).map(decodeURIComponent)
    const params = Object.fromEntries(['name', 'address', 'city', 'state', 'telephone', 'cellphone', 'email', 'birth'].map((f, i) => [f, segments[i]]))
    expect(criteriaOf(params)).toEqual(criteria)
    expect(formOf(criteriaOf(params))).toEqual({ name: 'José da Silva', state: 'SP', birth: '06/09/1997' })
  })

  it('leaves trailing empty fields out of the path', () => {
    expect(resultListPath({ name: 'Ana' })).toBe('/advanced-query-result-list/Ana')
  })
})
