import { readFileSync } from 'node:fs'
import { resolve } from 'node:path'
import i18next from 'i18next'
import { describe, expect, it } from 'vitest'
import { AUDIT_EVENT_KINDS } from '../../store/generated/auditEventKinds'
import { auditEnUS, auditPtBR } from './i18n'
import { auditSentence, changeText, hasSentence, showAuditValue, type SentenceRow, type Words } from './show'

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

/** The cases the server's test runs too (tests/projections/test_audit_sentences.py): its export says each row as
 * this screen does. */
interface Cases {
  sentences: ({ row: SentenceRow } & Record<(typeof LANGUAGES)[number], string>)[]
  values: [string, string | null, string, string][]
  changes: [string, { field: string; before: string | null; after: string | null; kind: string }, string, string][]
}
const CASES = JSON.parse(readFileSync(resolve(__dirname, 'sentenceCases.json'), 'utf8')) as Cases

describe('the cases the server says alike', () => {
  it.each(LANGUAGES)('%s: each row as its sentence', async (lng) => {
    const w = await words(lng)
    for (const c of CASES.sentences) expect(auditSentence(c.row, w), JSON.stringify(c.row)).toBe(c[lng])
  })

  it('each value as it reads', async () => {
    const [pt, en] = [await words('pt-BR'), await words('en-US')]
    for (const [field, value, inPt, inEn] of CASES.values) {
      expect([showAuditValue(field, value, pt), showAuditValue(field, value, en)], `${field}=${value}`).toEqual([inPt, inEn])
    }
  })

  it('each change with its field\'s label', async () => {
    const [pt, en] = [await words('pt-BR'), await words('en-US')]
    for (const [type, change, inPt, inEn] of CASES.changes) {
      expect([changeText(type, change, pt), changeText(type, change, en)], `${type}.${change.field}`).toEqual([inPt, inEn])
    }
  })
})
