import { describe, expect, it } from 'vitest'
import { customerErrors, type CustomerForm } from './validation'

const valid: CustomerForm = {
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

describe('editing a customer', () => {
  it('fills the form from the detail, without quantities (credits move by grants)', async () => {
    const { formOf } = await import('./validation')
    const form = formOf({
      id: 'g1',
      uniqueKey: 'k',
      name: 'Acme',
      companyName: 'Acme Ltda',
      type: 'white-label',
      parentId: 'root',
      parentName: 'Bemtevi',
      domainUrl: 'acme.example.com',
      cnpj: '11222333000181',
      tradeName: 'Acme',
      personInCharge: 'Ana',
      phone: '11988887777',
      email: 'ana@acme.com.br',
      seller: null,
      defaultQuery: true,
      consultProtest: false,
      panelAccess: true,
      apiAccess: true,
      enabledQueryTypes: ['cpf-complete'],
      active: true,
      createdAt: '2026-01-01 10:00:00',
      toggles: { allowCreatedWhiteLabel: true, allowUploadingManualQueries: true, allowDeletedAndCancelled: false },
      brand: {} as never,
      resolvedBrand: {} as never,
      parentEnabledQueryTypes: ['cpf-complete', 'cnpj-complete'],
      enabledLayouts: ['l1'],
      parentEnabledLayouts: ['l1', 'l2'],
      parentToggles: { allowCreatedWhiteLabel: true, allowUploadingManualQueries: true, allowDeletedAndCancelled: true },
      credits: [],
    })
    expect(form.whiteLabelUrl).toBe('acme.example.com')
    expect(form.companyName).toBe('Acme Ltda')
    expect(form.enabledLayouts).toEqual(['l1'])
    expect(form.quantities).toEqual({ unit: 0, batch: 0, advanced: 0, api: 0 })
    expect(customerErrors(form)).toEqual({})
    expect(customerErrors({ ...form, whiteLabelUrl: ' ' })).toEqual({ whiteLabelUrl: 'customers.errors.required' })
  })
})
