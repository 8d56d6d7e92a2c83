import { afterEach, describe, expect, it, vi } from 'vitest'
import { eventParser, readEvents, type ServerEvent } from './sse'

describe('eventParser', () => {
  it('gives the events a stream completes, whatever the chunks', () => {
    const text = ': hello\r\nevent: progress\ndata: {"done":1}\n\nevent: progress\r\ndata: {"done":2}\r\n\r\ndata: a\ndata: b\n\n'
    const whole = eventParser()(text)
    expect(whole).toEqual([
      { event: 'progress', data: '{"done":1}' },
      { event: 'progress', data: '{"done":2}' },
      { event: 'message', data: 'a\nb' },
    ])
    for (const size of [1, 2, 3, 7]) {
      const parse = eventParser()
      const got: ServerEvent[] = []
      for (let i = 0; i < text.length; i += size) got.push(...parse(text.slice(i, i + size)))
      expect(got).toEqual(whole)
    }
  })

  it('keeps an event that has not ended yet', () => {
    const parse = eventParser()
    expect(parse('event: progress\ndata: 1\n')).toEqual([])
    expect(parse('\n')).toEqual([{ event: 'progress', data: '1' }])
  })
})

describe('readEvents', () => {
  afterEach(() => vi.unstubAllGlobals())

  it('sends the bearer token and reads events until the stream ends', async () => {
    const bytes = new TextEncoder().encode('event: progress\ndata: {"status":"processing","done":5}\n\n')
    const body = new ReadableStream<Uint8Array>({
      start(controller) {
        // split inside the data line, as a network would
        controller.enqueue(bytes.slice(0, 20))
        controller.enqueue(bytes.slice(20))
        controller.close()
      },
    })
    const fetchMock = vi.fn().mockResolvedValue(new Response(body, { status: 200 }))
    vi.stubGlobal('fetch', fetchMock)
    const seen: ServerEvent[] = []
    await readEvents('/api/batches/1/progress', 'tok', (e) => seen.push(e))
    expect(fetchMock.mock.calls[0][1].headers.Authorization).toBe('Bearer tok')
    expect(seen).toEqual([{ event: 'progress', data: '{"status":"processing","done":5}' }])
  })

  it('rejects an answer that is not 2xx', async () => {
    vi.stubGlobal('fetch', vi.fn().mockResolvedValue(new Response('{}', { status: 404 })))
    await expect(readEvents('/x', null, () => undefined)).rejects.toThrow('HTTP 404')
  })
})
