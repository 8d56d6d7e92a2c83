import { useEffect, useState } from 'react'
import { readEvents } from '../../lib/sse'
import { useAppSelector } from '../../store/hooks'
import { batchUrls } from './api'
import { parseProgress, type ProgressData } from './rules'

/**
 * The live progress of a running batch from its server-sent events (fetch + ReadableStream, the
 * bearer token in a header). Calls `onOver` once the stream reports a terminal status, so the list
 * refetches the row. null until the first event (or when the stream is not there).
 */
export function useLiveProgress(id: string, running: boolean, onOver: () => void): ProgressData | null {
  const token = useAppSelector((s) => s.auth.authToken)
  const [progress, setProgress] = useState<ProgressData | null>(null)
  useEffect(() => {
    if (!running) return
    const abort = new AbortController()
    let over = false
    readEvents(
      batchUrls.progress(id),
      token,
      (event) => {
        if (event.event !== 'progress') return
        const data = parseProgress(event.data)
        if (!data) return
        setProgress(data)
        if (!over && data.status !== 'waiting' && data.status !== 'processing') {
          over = true
          onOver()
        }
      },
      abort.signal,
    ).catch(() => undefined) // the list's own refresh still moves the row on
    return () => abort.abort()
    // onOver is a fresh closure each render; the stream is per batch
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [id, running, token])
  return progress
}
