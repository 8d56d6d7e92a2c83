import { useEffect, useState } from 'react'
import { useAppSelector } from '../../store/hooks'

/**
 * A user's stored photo as an object URL (the photo endpoint needs the bearer token, which an
 * <img src> cannot send). Refetched when the digest changes; null while absent.
 */
export function usePhoto(userId: string | null | undefined, digest: string | null | undefined): string | null {
  const token = useAppSelector((s) => s.auth.authToken)
  const key = userId && digest && token ? `${userId}:${digest}` : null
  const [fetched, setFetched] = useState<{ key: string; url: string } | null>(null)
  useEffect(() => {
    if (!key || !userId || !digest) return
    let cancelled = false
    let objectUrl: string | null = null
    fetch(`/api/users/${userId}/photo?v=${digest}`, { headers: { Authorization: `Bearer ${token}` } })
      .then((r) => (r.ok ? r.blob() : null))
      .then((blob) => {
        if (!blob || cancelled) return
        objectUrl = URL.createObjectURL(blob)
        setFetched({ key, url: objectUrl })
      })
      .catch(() => undefined)
    return () => {
      cancelled = true
      if (objectUrl) URL.revokeObjectURL(objectUrl)
    }
  }, [key, userId, digest, token])
  return fetched && fetched.key === key ? fetched.url : null
}
