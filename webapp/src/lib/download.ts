/** The file name a Content-Disposition header gives, if any. */
export function fileNameOf(disposition: string | null): string | null {
  const match = /filename="?([^";]+)"?/i.exec(disposition ?? '')
  return match ? match[1] : null
}

/** Fetch a file the API builds (it needs the bearer token, so no plain link) and save it; the answer's headers
 * (a signed file's signature comes in one). */
export async function downloadFile(url: string, token: string | null, fallbackName: string): Promise<Headers> {
  const response = await fetch(url, { headers: token ? { Authorization: `Bearer ${token}` } : {} })
  if (!response.ok) {
    const body = (await response.json().catch(() => null)) as { message?: string } | null
    throw new Error(body?.message ?? response.statusText)
  }
  const blob = await response.blob()
  const link = document.createElement('a')
  link.href = URL.createObjectURL(blob)
  link.download = fileNameOf(response.headers.get('content-disposition')) ?? fallbackName
  document.body.appendChild(link)
  link.click()
  link.remove()
  URL.revokeObjectURL(link.href)
  return response.headers
}
