import { vi } from 'vitest'
import { user } from './fixtures'

export type ApiCall = { method: string; path: string; body: unknown }

/** A JSON answer of the fake API. */
export const json = (body: unknown, status = 200) => new Response(JSON.stringify(body), { status, headers: { 'Content-Type': 'application/json' } })

/**
 * Signs a super-admin in and puts a fake API in fetch's place: each call is recorded and answered by `answer`,
 * or with the API's 404 when it gives nothing. The caller undoes it with `vi.unstubAllGlobals()`.
 */
export function fakeApi(answer: (call: ApiCall) => Response | undefined) {
  const calls: ApiCall[] = []
  localStorage.setItem('authToken', 'tok-1')
  localStorage.setItem('authUser', JSON.stringify({ ...user, role: 'super-admin' }))
  vi.stubGlobal(
    'fetch',
    vi.fn(async (asked: Request | string) => {
      // RTK Query sends a Request; a screen's own fetch (e.g. the v1 schema) a path.
      const input = typeof asked === 'string' ? new Request(new URL(asked, 'http://localhost')) : asked
      const url = new URL(input.url, 'http://localhost')
      const text = input.method === 'GET' ? '' : await input.clone().text()
      const call = { method: input.method, path: url.pathname, body: text ? (JSON.parse(text) as unknown) : null }
      calls.push(call)
      return answer(call) ?? json({ statusCode: 404, message: 'Not found', code: 'not_found' }, 404)
    }),
  )
  return {
    calls,
    /** The calls that change something, as `METHOD /path`, in order. */
    commands: () => calls.filter((c) => c.method !== 'GET').map((c) => `${c.method} ${c.path}`),
    /** The bodies sent by POST to one path, in order. */
    posts: (path: string) => calls.filter((c) => c.method === 'POST' && c.path === path).map((c) => c.body as Record<string, unknown>),
  }
}
