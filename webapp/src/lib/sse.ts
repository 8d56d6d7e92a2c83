/** One server-sent event: its name (`message` when the stream gives none) and its data lines joined. */
export interface ServerEvent {
  event: string
  data: string
}

/**
 * Splits a text/event-stream into events as the bytes arrive. Feed it chunks (any split, even
 * inside a line or a multi-byte character's bytes); it returns the events each chunk completes.
 * Comments (`:` lines) are skipped; `\r\n` and `\n` both end a line.
 */
export function eventParser(): (chunk: string) => ServerEvent[] {
  let buffer = ''
  let event = ''
  let data: string[] = []
  return (chunk) => {
    buffer += chunk
    const done: ServerEvent[] = []
    let end = buffer.search(/\r?\n/)
    while (end >= 0) {
      const line = buffer.slice(0, end)
      buffer = buffer.slice(buffer[end] === '\r' ? end + 2 : end + 1)
      if (line === '') {
        if (data.length) done.push({ event: event || 'message', data: data.join('\n') })
        event = ''
        data = []
      } else if (!line.startsWith(':')) {
        const colon = line.indexOf(':')
        const field = colon < 0 ? line : line.slice(0, colon)
        const value = colon < 0 ? '' : line.slice(colon + 1).replace(/^ /, '')
        if (field === 'event') event = value
        else if (field === 'data') data.push(value)
      }
      end = buffer.search(/\r?\n/)
    }
    return done
  }
}

/**
 * Reads a server-sent-events route with fetch (so the bearer token goes in a header, which
 * EventSource cannot do) and calls `onEvent` for each event until the server closes the stream or
 * `signal` aborts. Rejects on a non-2xx answer (the response's status in the message).
 */
export async function readEvents(
  url: string,
  token: string | null,
  onEvent: (event: ServerEvent) => void,
  signal?: AbortSignal,
): Promise<void> {
  const headers: Record<string, string> = { Accept: 'text/event-stream' }
  if (token) headers.Authorization = `Bearer ${token}`
  const response = await fetch(url, { headers, signal })
  if (!response.ok || !response.body) throw new Error(`HTTP ${response.status}`)
  const reader = response.body.pipeThrough(new TextDecoderStream()).getReader()
  const parse = eventParser()
  for (;;) {
    const { value, done } = await reader.read()
    if (done) break
    for (const event of parse(value)) onEvent(event)
  }
}
