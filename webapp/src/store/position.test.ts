import { afterEach, describe, expect, it, vi } from 'vitest'
import { api, withPosition } from './api'
import { makeStore } from '.'

afterEach(() => vi.unstubAllGlobals())

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

  it('a read after a command carries the command position', async () => {
    const urls: string[] = []
    vi.stubGlobal(
      'fetch',
      vi.fn(async (input: Request) => {
        urls.push(input.url)
        const body = input.method === 'POST' ? { data: { id: 'c1' }, position: 42 } : { data: { consultationsTotal: 1 } }
        return new Response(JSON.stringify(body), { status: 200, headers: { 'Content-Type': 'application/json' } })
      }),
    )
    const store = makeStore()
    await store.dispatch(api.endpoints.consult.initiate({ document: '52998224725' }))
    expect(store.getState().session.lastPosition).toBe(42)
    await store.dispatch(api.endpoints.getDashboard.initiate({}))
    expect(new URL(urls[1]).searchParams.get('position')).toBe('42')
  })
})
