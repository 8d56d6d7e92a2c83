import { describe, expect, it } from 'vitest'
import type { CustomerRequest } from './customersApi'
import { customerErrors } from './validation'

const valid: CustomerRequest = {
  type: 'company',
  cnpj: '11.222.333/0001-81',
  companyName: 'Empresa Exemplo Ltda',
  tradeName: 'Exemplo',
  personInCharge: 'Ana Souza',
  phone: '(11) 91234-5678',
  email: 'ana@exemplo.com.br',
  seller: null,
  defaultQuery: true,
  consultProtest: false,
  quantities: { unit: 10, batch: 0, advanced: 0, api: 0 },
  enabledQueryTypes: ['cpf-complete'],
  panelAccess: true,
  apiAccess: false,
  whiteLabelUrl: null,
}

describe('customer form rules', () => {
  it('accepts a complete form', () => {
    expect(customerErrors(valid)).toEqual({})
  })

  it.each([
    [{ cnpj: '' }, 'cnpj', 'customers.errors.required'],
    [{ cnpj: '11.222.333/0001-80' }, 'cnpj', 'customers.errors.cnpj'],
    [{ tradeName: '  ' }, 'tradeName', 'customers.errors.required'],
    [{ phone: '1234-5678' }, 'phone', 'customers.errors.phone'],
    [{ email: 'ana@exemplo' }, 'email', 'customers.errors.email'],
    [{ enabledQueryTypes: [] }, 'enabledQueryTypes', 'customers.errors.queryTypes'],
    [{ panelAccess: false, apiAccess: false }, 'access', 'customers.errors.access'],
    [{ type: 'white-label' as const }, 'whiteLabelUrl', 'customers.errors.required'],
    [{ quantities: { unit: -1, batch: 0, advanced: 0, api: 0 } }, 'quantities.unit', 'customers.errors.quantity'],
  ])('refuses %o on %s', (change, field, message) => {
    expect(customerErrors({ ...valid, ...change })[field]).toBe(message)
  })
})
