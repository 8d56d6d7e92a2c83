import { describe, expect, it } from 'vitest'
import { EMPTY_SUPPLIER, requestOf, supplierErrors, type SupplierForm } from './validation'

const valid: SupplierForm = {
  ...EMPTY_SUPPLIER,
  name: 'Vendor Brasil',
  contact: 'suporte@vendor.example',
  url: 'https://api.vendor.example',
  server: 'api.vendor.example',
  port: '443',
  route: '/v1/pessoas/{document}',
  token: 'tok',
  allowedQueryTypes: ['cpf-complete'],
}

describe('supplierErrors', () => {
  it('accepts a complete form', () => {
    expect(supplierErrors(valid)).toEqual({})
  })

  it('names each missing required field', () => {
    const errors = supplierErrors({ ...valid, contact: ' ', url: '', server: '', port: '', route: '' })
    expect(errors).toMatchObject({
      contact: 'suppliers.errors.required',
      url: 'suppliers.errors.required',
      server: 'suppliers.errors.required',
      port: 'suppliers.errors.required',
      route: 'suppliers.errors.required',
    })
  })

  it('asks for the bearer token, the basic user and password, and the prefix', () => {
    expect(supplierErrors({ ...valid, token: '' }).token).toBe('suppliers.errors.bearer')
    expect(supplierErrors({ ...valid, token: '' }, { password: false, token: true }).token).toBeUndefined()
    const basic = supplierErrors({ ...valid, authMethod: 'basic' })
    expect(basic).toMatchObject({ username: 'suppliers.errors.required', password: 'suppliers.errors.required' })
    expect(supplierErrors({ ...valid, authMethod: 'prefix' }).prefix).toBe('suppliers.errors.required')
  })

  it('refuses a body that is not JSON and cache days above validity', () => {
    expect(supplierErrors({ ...valid, httpMethod: 'POST', requestBody: '{"doc": ' }).requestBody).toBe('suppliers.errors.json')
    expect(supplierErrors({ ...valid, httpMethod: 'POST', requestBody: '{"doc": "{document}"}' }).requestBody).toBeUndefined()
    expect(supplierErrors({ ...valid, cacheDays: '91', validityDays: '90' }).cacheDays).toBe('suppliers.errors.cacheAboveValidity')
  })

  it('bounds the answer size cap and sends it as a number', () => {
    expect(supplierErrors({ ...valid, maxBodyKb: '0' }).maxBodyKb).toBe('suppliers.errors.maxBody')
    expect(supplierErrors({ ...valid, maxBodyKb: '16385' }).maxBodyKb).toBe('suppliers.errors.maxBody')
    expect(supplierErrors({ ...valid, maxBodyKb: '2048' }).maxBodyKb).toBeUndefined()
    expect(requestOf({ ...valid, maxBodyKb: '2048' }).maxBodyKb).toBe(2048)
  })

  it('sends blank secrets as null so the stored ones are kept', () => {
    expect(requestOf({ ...valid, token: '' }).token).toBeNull()
    expect(requestOf(valid)).toMatchObject({ token: 'tok', password: null, port: 443, cacheDays: 30 })
  })
})
