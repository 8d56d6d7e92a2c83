import i18next from 'i18next'
import { describe, expect, it } from 'vitest'
import { auditEnUS, auditPtBR } from './i18n'
import { showAuditValue, type Words } from './show'

async function words(lng: 'pt-BR' | 'en-US'): Promise<Words> {
  const i18n = i18next.createInstance()
  await i18n.init({
    lng,
    resources: { 'pt-BR': { translation: { audit: auditPtBR } }, 'en-US': { translation: { audit: auditEnUS } } },
  })
  return { t: (key) => i18n.t(key), exists: (key) => i18n.exists(key) }
}

describe('showAuditValue', () => {
  it('reads a layout change in both languages: its format, delimiter and rows', async () => {
    const pt = await words('pt-BR')
    const en = await words('en-US')
    expect(showAuditValue('kind', 'fixed', pt)).toBe('Posicional (largura fixa)')
    expect(showAuditValue('kind', 'delimited', en)).toBe('Delimited')
    expect(showAuditValue('delimiter', '\t', pt)).toBe('tabulação')
    expect(showAuditValue('delimiter', ';', en)).toBe(';')
    expect(showAuditValue('entry_fields', 'cpf (document, 11), nome (text)', pt)).toBe('cpf (documento, 11), nome (texto)')
    expect(showAuditValue('exit_fields', 'cpf (document, 11)', en)).toBe('cpf (document, 11)')
    expect(showAuditValue('first_line', 'false', pt)).toBe('Não')
  })

  it('reads a query type and a supplier: toggles, component, authentication, lookups', async () => {
    const pt = await words('pt-BR')
    const en = await words('en-US')
    expect(showAuditValue('toggle_benefit', 'true', en)).toBe('Yes')
    expect(showAuditValue('component', 'company', pt)).toBe('Pessoa jurídica')
    expect(showAuditValue('group_type', 'company', pt)).toBe('Empresa')
    expect(showAuditValue('auth_method', 'bearer', en)).toBe('Bearer token')
    expect(showAuditValue('input_type', 'both', pt)).toBe('CPF e CNPJ')
    expect(showAuditValue('allowed_query_types', 'cpf-complete, minha-consulta', en)).toBe(
      'Complete person (CPF), minha-consulta',
    )
    expect(showAuditValue('cache_days', '30', pt)).toBe('30')
    expect(showAuditValue('url', 'http://vendor.example', pt)).toBe('http://vendor.example')
    expect(showAuditValue('name', null, pt)).toBe('—')
  })

  it('still formats documents and phones', async () => {
    const pt = await words('pt-BR')
    expect(showAuditValue('cpf', '52998224725', pt)).toBe('529.982.247-25')
    expect(showAuditValue('status', 'inactive', pt)).toBe('Inativo')
  })
})
