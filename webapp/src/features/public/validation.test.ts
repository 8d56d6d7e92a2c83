import { describe, expect, it } from 'vitest'
import { contactErrors, serverFieldErrors, type ContactFormValues } from './validation'

const valid: ContactFormValues = {
  name: 'Mariana Costa',
  document: '529.982.247-25',
  email: 'mariana.costa@empresa.com.br',
  phone: '(11) 98765-4321',
  service: 'trial',
  message: 'Gostaria de testar o enriquecimento em lote.',
}

describe('contact form rules', () => {
  it('accepts a complete form, a CNPJ and an empty phone', () => {
    expect(contactErrors(valid)).toEqual({})
    expect(contactErrors({ ...valid, document: '11.222.333/0001-81', phone: '' })).toEqual({})
    expect(contactErrors({ ...valid, phone: '   ', service: 'sms' })).toEqual({})
  })

  it('requires every field but the phone', () => {
    const empty = { name: ' ', document: '', email: '', phone: '', service: '', message: '  ' }
    expect(contactErrors(empty)).toEqual({
      name: 'public.contact.errors.required',
      document: 'public.contact.errors.required',
      email: 'public.contact.errors.required',
      service: 'public.contact.errors.service',
      message: 'public.contact.errors.required',
    })
  })

  it('wants a name of 3 characters and a message of 10', () => {
    expect(contactErrors({ ...valid, name: ' Al ' }).name).toBe('public.contact.errors.nameMin')
    expect(contactErrors({ ...valid, name: 'Ana' }).name).toBeUndefined()
    expect(contactErrors({ ...valid, message: 'Olá, tudo' }).message).toBe('public.contact.errors.messageMin')
    expect(contactErrors({ ...valid, message: 'Olá, tudo?' }).message).toBeUndefined()
  })

  it('checks the CPF or CNPJ check digits and length', () => {
    expect(contactErrors({ ...valid, document: '529.982.247-24' }).document).toBe('public.contact.errors.document')
    expect(contactErrors({ ...valid, document: '111.111.111-11' }).document).toBe('public.contact.errors.document')
    expect(contactErrors({ ...valid, document: '11.222.333/0001-80' }).document).toBe('public.contact.errors.document')
    expect(contactErrors({ ...valid, document: '1234567' }).document).toBe('public.contact.errors.documentType')
  })

  it('takes the e-mail format of the specification (2 to 4 letter ending)', () => {
    for (const bad of ['mariana', 'mariana@empresa', 'mariana@empresa.abcde', 'ana+x@empresa.com', 'ana@empresa.c0m'])
      expect(contactErrors({ ...valid, email: bad }).email).toBe('public.contact.errors.email')
    for (const good of ['x@y.io', 'joao_souza-01@mail.empresa.info', ' Ana@Example.COM '])
      expect(contactErrors({ ...valid, email: good }).email).toBeUndefined()
  })

  it('wants at least 10 phone digits when a phone is given', () => {
    expect(contactErrors({ ...valid, phone: '11 9876-543' }).phone).toBe('public.contact.errors.phone')
    expect(contactErrors({ ...valid, phone: '(11) 3456-7890' }).phone).toBeUndefined()
    expect(contactErrors({ ...valid, phone: '+55 11 98765-4321' }).phone).toBeUndefined()
    expect(contactErrors({ ...valid, phone: '99 11 98765-4321' }).phone).toBe('public.contact.errors.phone')
  })

  it('only accepts the listed services', () => {
    expect(contactErrors({ ...valid, service: 'free-lunch' }).service).toBe('public.contact.errors.service')
    expect(contactErrors({ ...valid, service: 'automatic-dialer' }).service).toBeUndefined()
  })
})

describe('server refusals', () => {
  it('map onto the form fields', () => {
    expect(
      serverFieldErrors([
        { property: 'name', isNotEmpty: 'name should not be empty' },
        { property: 'document', constraint: 'The informed document is invalid' },
        { property: 'service', isEnum: 'service must be a valid enum value' },
        { property: 'unknown', constraint: 'x' },
      ]),
    ).toEqual({
      name: 'public.contact.errors.required',
      document: 'public.contact.errors.document',
      service: 'public.contact.errors.service',
    })
    expect(serverFieldErrors(undefined)).toEqual({})
  })
})
