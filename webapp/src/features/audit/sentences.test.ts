import i18next from 'i18next'
import { describe, expect, it } from 'vitest'
import { AUDIT_EVENT_KINDS } from '../../store/generated/auditEventKinds'
import { auditEnUS, auditPtBR } from './i18n'
import { auditSentence, hasSentence, showAuditValue, type SentenceRow, type Words } from './show'

const LANGUAGES = ['pt-BR', 'en-US'] as const

async function words(lng: (typeof LANGUAGES)[number]): Promise<Words> {
  const i18n = i18next.createInstance()
  await i18n.init({
    lng,
    resources: { 'pt-BR': { translation: { audit: auditPtBR } }, 'en-US': { translation: { audit: auditEnUS } } },
  })
  return { t: (key, values) => i18n.t(key, values ?? {}), exists: (key) => i18n.exists(key), lang: lng }
}

const placeholders = (text: string) => [...text.matchAll(/\{\{\s*(\w+)\s*\}\}/g)].map((m) => m[1]).sort()

function row(kind: string, details: Record<string, string | null> = {}, extra: Partial<SentenceRow> = {}): SentenceRow {
  const [aggregateType, eventType] = kind.split('.')
  return { aggregateType, eventType, actorName: 'Maria', targetType: 'user', targetName: 'Alvo', details, ...extra }
}

describe('every kind of event the audit log can show', () => {
  // AUDIT_EVENT_KINDS is generated from the API's schema, which lists every event the audit read model records
  // (a test on the server checks the list is the read model's): a new event fails here until both languages
  // have its name and its sentence.
  it('is a list the server gave', () => {
    expect(AUDIT_EVENT_KINDS.length).toBeGreaterThan(40)
    expect(AUDIT_EVENT_KINDS).toContain('Batch.Submitted')
  })

  it.each(LANGUAGES)('%s names each kind and says each as a sentence with who and what', async (lng) => {
    const w = await words(lng)
    const missing: string[] = []
    for (const kind of AUDIT_EVENT_KINDS) {
      const [type, event] = kind.split('.')
      if (!w.exists(`audit.types.${type}`)) missing.push(`types.${type}`)
      if (!w.exists(`audit.events.${kind}`)) missing.push(`events.${kind}`)
      if (!hasSentence(row(kind), w)) missing.push(`sentences.${kind}`)
      const text = auditSentence(row(kind), w)
      expect(text, kind).not.toContain('{{')
      expect(text, kind).not.toContain(`${type} · ${event}`)
      expect(text.trim().length, kind).toBeGreaterThan(5)
    }
    expect(missing).toEqual([])
  })

  it('says the same things in both languages (the same placeholders)', () => {
    const pt = auditPtBR.sentences as Record<string, Record<string, string>>
    const en = auditEnUS.sentences as Record<string, Record<string, string>>
    for (const [type, events] of Object.entries(pt)) {
      for (const [event, text] of Object.entries(events)) {
        expect(placeholders(en[type]?.[event] ?? ''), `${type}.${event}`).toEqual(placeholders(text))
      }
    }
    expect(Object.keys(en).sort()).toEqual(Object.keys(pt).sort())
  })
})

describe('auditSentence', () => {
  const submitted = row(
    'Batch.Submitted',
    { records: '1200', layout_id: 'CPF básico', kind: 'batch', file_name: 'clientes.csv' },
    { targetType: 'batch', targetName: 'clientes.csv' },
  )

  it('says a batch upload with its file, records and layout by name', async () => {
    expect(auditSentence(submitted, await words('pt-BR'))).toBe(
      'Maria enviou o lote clientes.csv (1.200 registros) com o layout CPF básico',
    )
    expect(auditSentence(submitted, await words('en-US'))).toBe(
      'Maria uploaded batch clientes.csv (1,200 records) with layout CPF básico',
    )
  })

  it('counts in words: one record, none charged', async () => {
    const finished = row(
      'Batch.Finished',
      { records: '1', found: '1', charged: '0' },
      { targetType: 'batch', targetName: 'um.csv', actorName: null },
    )
    expect(auditSentence(finished, await words('pt-BR'))).toBe(
      'Lote um.csv concluído: 1 registro, 1 encontrado, nenhum crédito cobrado',
    )
    expect(auditSentence(finished, await words('en-US'))).toBe('Batch um.csv finished: 1 record, 1 found, no credits charged')
  })

  it('says a lookup with the document formatted, the query type and the channel', async () => {
    const lookup = row(
      'Consultation.Recorded',
      { queryType: 'Pessoa física completa', channel: 'panel', credits: '1', status: 'done' },
      { targetType: 'document', targetName: '52998224725' },
    )
    expect(auditSentence(lookup, await words('pt-BR'))).toBe(
      'Maria consultou 529.982.247-25 (Pessoa física completa, Painel)',
    )
    expect(auditSentence({ ...lookup, details: { ...lookup.details, channel: 'batch' } }, await words('en-US'))).toBe(
      'Maria looked up 529.982.247-25 (Pessoa física completa, Batch)',
    )
  })

  it('says a take-back the other way round, the amount without its sign', async () => {
    const back = row(
      'CreditAccount.Granted',
      { amount: '-50', category: 'unit', counterparty: 'Loja' },
      { targetType: 'group', targetName: 'Loja' },
    )
    expect(auditSentence(back, await words('pt-BR'))).toBe('Maria retirou 50 créditos de Consulta manual de Loja')
    const given = { ...back, details: { ...back.details, amount: '1500' } }
    expect(auditSentence(given, await words('en-US'))).toBe('Maria granted 1,500 credits of Manual query to Loja')
  })

  it('says a change of the user\'s own password as such', async () => {
    const own = row('User.PasswordChanged', {}, { actorId: 'u-1', targetId: 'u-1', targetName: 'Maria' })
    expect(auditSentence(own, await words('pt-BR'))).toBe('Maria alterou a própria senha')
    expect(auditSentence({ ...own, targetId: 'u-2', targetName: 'João' }, await words('en-US'))).toBe(
      'Maria changed the password of João',
    )
  })

  it('reads a system action as the system and a missing detail as a dash', async () => {
    const started = row('Batch.Submitted', {}, { actorName: null, targetType: 'batch', targetName: 'x.csv' })
    expect(auditSentence(started, await words('pt-BR'))).toBe('Sistema enviou o lote x.csv (—) com o layout —')
  })
})

describe('showAuditValue formats details', () => {
  it('dates as the language writes them, sizes, counts, documents and phones', async () => {
    const pt = await words('pt-BR')
    const en = await words('en-US')
    expect(showAuditValue('birth', '1980-05-10', pt)).toBe('10/05/1980')
    expect(showAuditValue('birth', '1980-05-10', en)).toBe('05/10/1980')
    expect(showAuditValue('size', '2048', pt)).toBe('2 KB')
    expect(showAuditValue('records', '1200', pt)).toBe('1.200')
    expect(showAuditValue('credits_reserved', '1200', en)).toBe('1,200')
    expect(showAuditValue('document', '11222333000181', pt)).toBe('11.222.333/0001-81')
    expect(showAuditValue('channel', 'panel', pt)).toBe('Painel')
    expect(showAuditValue('channel', 'panel', en)).toBe('Panel')
    expect(showAuditValue('channel', 'api', en)).toBe('API')
    expect(showAuditValue('kind', 'manual', pt)).toBe('Enriquecimento manual')
    expect(showAuditValue('creditLimit', 'unlimited', en)).toBe('Unlimited')
    expect(showAuditValue('port', '8080', pt)).toBe('8080')
  })
})
