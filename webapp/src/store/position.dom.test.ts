import { afterEach, describe, expect, it, vi } from 'vitest'
import { POST_READS, withoutAbsentParams, withPosition } from './api'
import { exportUrl } from './endpoints'
import { bemteviApi } from './generated/bemteviApi'
import { makeStore } from '.'
import { clearSession } from './authSlice'

afterEach(() => vi.unstubAllGlobals())

/** A server whose commands answer position 42 and whose reads answer a dashboard; the URLs asked, in order. */
function commandsAnswerPosition42(): string[] {
  const urls: string[] = []
  vi.stubGlobal(
    'fetch',
    vi.fn(async (input: Request) => {
      urls.push(input.url)
      const body = input.method === 'POST' ? { data: { id: 'c1' }, position: 42 } : { data: { consultationsTotal: 1 } }
      return new Response(JSON.stringify(body), { status: 200, headers: { 'Content-Type': 'application/json' } })
    }),
  )
  return urls
}

describe('withPosition (read-your-writes)', () => {
  it.each([
    ['no position yet', 'dashboard', null, 'dashboard'],
    ['plain GET gets it', 'dashboard', 7, { url: 'dashboard', params: { position: 7 } }],
    ['GET keeps its params', { url: 'customers', params: { page: 2 } }, 7, { url: 'customers', params: { page: 2, position: 7 } }],
    ['explicit position wins', { url: 'dashboard', params: { position: 3 } }, 7, { url: 'dashboard', params: { position: 3 } }],
    ['position in the URL wins', 'audit?position=3', 7, 'audit?position=3'],
    ['commands are left alone', { url: 'consultations', method: 'POST', body: {} }, 7, { url: 'consultations', method: 'POST', body: {} }],
  ])('%s', (_rule, args, position, expected) => {
    expect(withPosition(args, position)).toEqual(expected)
  })

  it('a read sent as POST (public data) carries it; its explicit position wins', () => {
    const read = { url: '/group/groups-get-public-data', method: 'POST', body: {}, params: { position: undefined } }
    expect(withPosition(read, 7, true)).toEqual({ ...read, params: { position: 7 } })
    expect(withPosition({ ...read, params: { position: 3 } }, 7, true)).toEqual({ ...read, params: { position: 3 } })
    expect(POST_READS.has('publicData')).toBe(true)
  })

  it('a read after a command carries the command position', async () => {
    const urls = commandsAnswerPosition42()
    const store = makeStore()
    await store.dispatch(bemteviApi.endpoints.runConsultation.initiate({ consultationRequest: { document: '52998224725' } }))
    expect(store.getState().session.lastPosition).toBe(42)
    await store.dispatch(bemteviApi.endpoints.dashboard.initiate({}))
    expect(new URL(urls[1]).searchParams.get('position')).toBe('42')
  })
})

describe('read-your-writes across a reload', () => {
  afterEach(() => sessionStorage.clear())

  it('a page reloaded after a save reads that save: the tab keeps the position; signing out forgets it', async () => {
    const urls = commandsAnswerPosition42()
    const before = makeStore()
    await before.dispatch(bemteviApi.endpoints.runConsultation.initiate({ consultationRequest: { document: '52998224725' } }))
    // The store tells its subscribers in a batch after RTK Query's answers (its auto-batching): the tab has it then.
    await vi.waitFor(() => expect(sessionStorage.getItem('bemtevi.lastPosition')).toBe('42'))
    const reloaded = makeStore() // a reload builds the store anew
    expect(reloaded.getState().session.lastPosition).toBe(42)
    await reloaded.dispatch(bemteviApi.endpoints.dashboard.initiate({}))
    expect(new URL(urls[1]).searchParams.get('position')).toBe('42')
    reloaded.dispatch(clearSession())
    await vi.waitFor(() => expect(sessionStorage.getItem('bemtevi.lastPosition')).toBeNull())
    expect(makeStore().getState().session.lastPosition).toBeNull()
  })
})

describe('generated requests', () => {
  it('leave absent parameters out of the URL', () => {
    expect(withoutAbsentParams({ url: 'users', params: { page: 1, search: undefined, position: null } })).toEqual({
      url: 'users',
      params: { page: 1 },
    })
    expect(withoutAbsentParams('dashboard')).toBe('dashboard')
  })

  it('name an export by its generated endpoint, with the query names the API takes', () => {
    expect(exportUrl('exportAudit', { userId: 'u1', type: undefined, from: '2026-01-01', lang: 'en-US' })).toBe(
      '/api/audit/export?lang=en-US&user_id=u1&from=2026-01-01',
    )
    expect(exportUrl('exportHistory', { format: 'xlsx', lang: 'pt-BR', groupId: 'g1', category: null })).toBe(
      '/api/credits/history/export?format=xlsx&lang=pt-BR&groupId=g1',
    )
  })
})
