import { describe, expect, it } from 'vitest'
import i18n from '../../i18n'
import { resolveBrand } from '../../lib/brand'
import { siteContact, telHref } from './siteContact'

const t = i18n.getFixedT('pt-BR')
const platformPhone = t('public.contact.phone')
const platformEmail = t('public.contact.email')

describe('who the public pages say runs the site', () => {
  it('the platform’s own site shows the platform’s contact', () => {
    const contact = siteContact(resolveBrand(null), t)
    expect(contact).toMatchObject({ email: platformEmail, phone: platformPhone, whiteLabel: false })
  })

  it('a customer’s white label without contact data shows none, never the platform’s', () => {
    const brand = resolveBrand({ whiteLabel: true, name: 'Marca' } as never)
    const contact = siteContact(brand, t)
    expect(contact).toEqual({ email: null, phone: null, address: null, about: null, whiteLabel: true })
  })

  it('a customer’s white label shows its own contact and about text in paragraphs', () => {
    const brand = resolveBrand({
      whiteLabel: true,
      name: 'Marca',
      contactEmail: 'oi@marca.com.br',
      contactPhone: '+55 (41) 3333-4444',
      aboutText: 'Primeiro parágrafo.\n\n  Segundo parágrafo.  \n\n\n',
    } as never)
    const contact = siteContact(brand, t)
    expect(contact).toMatchObject({ email: 'oi@marca.com.br', phone: '+55 (41) 3333-4444', about: ['Primeiro parágrafo.', 'Segundo parágrafo.'] })
    expect(telHref(contact.phone ?? '')).toBe('tel:+554133334444')
  })
})
