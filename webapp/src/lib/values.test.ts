import { describe, expect, it } from 'vitest'
import { translateValue, translatedValues, type ValueKind } from './values'

describe('translateValue', () => {
  it('keeps the source words in pt-BR', () => {
    expect(translateValue('sign', 'Gêmeos', 'pt-BR')).toBe('Gêmeos')
    expect(translateValue('maritalStatus', 'Solteira', 'pt-BR')).toBe('Solteira')
  })

  it('gives the English word in en-US, whatever the accents, case and spaces', () => {
    expect(translateValue('sign', 'Gêmeos', 'en-US')).toBe('Gemini')
    expect(translateValue('sign', 'ESCORPIÃO', 'en-US')).toBe('Scorpio')
    expect(translateValue('maritalStatus', 'Solteira', 'en-US')).toBe('Single')
    expect(translateValue('maritalStatus', ' União  estável ', 'en-US')).toBe('Common-law marriage')
    expect(translateValue('education', 'Pós-graduação', 'en-US')).toBe('Postgraduate')
    expect(translateValue('companyStatus', 'ATIVA', 'en-US')).toBe('Active')
    expect(translateValue('companySize', 'EPP', 'en-US')).toBe('Small business (EPP)')
    expect(translateValue('partnerRole', 'Sócio-Administrador', 'en-US')).toBe('Managing partner')
  })

  it('leaves unknown and empty values as they are', () => {
    expect(translateValue('sign', 'Ofiúco', 'en-US')).toBe('Ofiúco')
    expect(translateValue('sign', null, 'en-US')).toBeNull()
    expect(translateValue('sign', undefined, 'en-US')).toBeUndefined()
  })

  it('covers the twelve signs and every marital status the sources write', () => {
    expect(translatedValues('sign')).toHaveLength(12)
    const marital = ['Solteiro', 'Solteira', 'Casado', 'Casada', 'Divorciado', 'Divorciada', 'Viúvo', 'Viúva', 'União estável']
    for (const value of marital) expect(translateValue('maritalStatus', value, 'en-US')).not.toBe(value)
    const kinds: ValueKind[] = ['maritalStatus', 'sign', 'education', 'companyStatus', 'companySize', 'partnerRole']
    for (const kind of kinds) expect(translatedValues(kind).length).toBeGreaterThan(0)
  })
})
