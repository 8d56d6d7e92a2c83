/** The access token issued last in this browser tab, in memory only (never stored): the playground offers it. */
let issued: string | null = null

export function rememberIssued(token: string): void {
  issued = token
}

export function lastIssued(): string | null {
  return issued
}
