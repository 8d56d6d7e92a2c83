/** Calls to the public API (/api/v1) with an access token: the playground's, outside the panel's session. */
export const V1_BASE = '/api/v1'

export interface V1Answer {
  status: number
  body: unknown
  /** The IETF RateLimit headers as answered (what is left of each limit). */
  rateLimit: string | null
  ms: number
}

export async function callV1(path: string, accessToken: string, init: RequestInit = {}): Promise<V1Answer> {
  const began = performance.now()
  const response = await fetch(`${V1_BASE}${path}`, {
    ...init,
    headers: { ...(init.headers as Record<string, string>), Authorization: `Bearer ${accessToken}` },
  })
  const text = await response.text()
  let body: unknown = text
  try {
    body = JSON.parse(text)
  } catch {
    // not JSON: shown as text
  }
  return { status: response.status, body, rateLimit: response.headers.get('RateLimit'), ms: Math.round(performance.now() - began) }
}

export interface V1Operation {
  id: string
  method: string
  path: string
  summary: string
  description: string
}

type V1Schema = {
  paths?: Record<string, Record<string, { operationId?: string; summary?: string; description?: string }>>
}

/** The operations of the v1 schema (served by this server: the docs work offline). */
export function operationsOf(schema: V1Schema): V1Operation[] {
  const found: V1Operation[] = []
  for (const [path, methods] of Object.entries(schema.paths ?? {})) {
    for (const [method, operation] of Object.entries(methods)) {
      found.push({
        id: operation.operationId ?? '',
        method: method.toUpperCase(),
        path: `${V1_BASE}${path}`,
        summary: operation.summary ?? '',
        description: operation.description ?? '',
      })
    }
  }
  return found
}
