import { describe, expect, it } from 'vitest'
import { EMPTY_LAYOUT, EMPTY_QUERY_TYPE, layoutErrors, layoutRequest, queryTypeErrors, queryTypeRequest } from './validation'

const filled = { ...EMPTY_QUERY_TYPE, name: 'Pessoa básica', description: 'Cadastro', icon: 'person', badge: 'PF' }

describe('query type form', () => {
  it('accepts a complete form and sends its days as numbers', () => {
    expect(queryTypeErrors(filled)).toEqual({})
    expect(queryTypeRequest(filled)).toMatchObject({ cacheDays: 30, validityDays: 90 })
  })

  it('says what the specification requires', () => {
    const errors = queryTypeErrors({ ...EMPTY_QUERY_TYPE, name: 'ab', cacheDays: '', toggles: {} })
    expect(errors.name.key).toBe('catalogue.errors.nameShort')
    expect(errors.badge.key).toBe('catalogue.errors.required')
    expect(errors.icon.key).toBe('catalogue.errors.required')
    expect(errors.description.key).toBe('catalogue.errors.required')
    expect(errors.cacheDays.key).toBe('catalogue.errors.required')
    expect(errors.cpf.key).toBe('catalogue.errors.document')
  })

  it('never lets cache pass validity', () => {
    expect(queryTypeErrors({ ...filled, cacheDays: '91' }).cacheDays.key).toBe('catalogue.errors.cacheOverValidity')
    expect(queryTypeErrors({ ...filled, cacheDays: '90' })).toEqual({})
  })
})

describe('layout form', () => {
  const layout = { ...EMPTY_LAYOUT, fileName: 'clientes', finalFileName: 'retorno', table: 'pessoas' }

  it('accepts the starting layout once named', () => {
    expect(layoutErrors(layout)).toEqual({})
    expect(layoutRequest(layout).rows[0]).toMatchObject({ order: 1, size: 11 })
  })

  it('requires the specification fields and sane rows', () => {
    const errors = layoutErrors({ ...EMPTY_LAYOUT, delimiter: '', returnExtension: 'pdf' })
    expect(errors.fileName.key).toBe('catalogue.errors.required')
    expect(errors.finalFileName.key).toBe('catalogue.errors.required')
    expect(errors.table.key).toBe('catalogue.errors.required')
    expect(errors.delimiter.key).toBe('catalogue.errors.required')
    expect(errors.returnExtension.key).toBe('catalogue.errors.extension')
    const fixed = layoutErrors({ ...layout, kind: 'fixed', rows: [{ ...layout.rows[0], size: '' }] })
    expect(fixed['rows.0.size'].key).toBe('catalogue.errors.size')
    const repeated = layoutErrors({ ...layout, rows: [layout.rows[0], { ...layout.rows[0], name: 'nome' }] })
    expect(repeated.rows.key).toBe('catalogue.errors.orderRepeated')
  })
})
