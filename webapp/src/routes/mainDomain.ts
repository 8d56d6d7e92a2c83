import { usePublicDataQuery } from '../store/generated/bemteviApi'

/** Hosts from a build-time list ("a.com,b.com"), lower-cased, ports kept as written. */
export function parseDomainList(raw: string | undefined | null): string[] {
  return (raw ?? '')
    .split(',')
    .map((d) => d.trim().toLowerCase())
    .filter(Boolean)
}

/** Whether `host` (maybe with a port, maybe with www.) is one of `domains`. */
export function hostIsMain(host: string, domains: string[]): boolean {
  const h = host.trim().toLowerCase()
  const bare = h.replace(/:\d+$/, '')
  const candidates = [h, bare, bare.replace(/^www\./, '')]
  return candidates.some((c) => domains.includes(c))
}

const CONFIGURED = parseDomainList(import.meta.env.VITE_MAIN_DOMAINS as string | undefined)

/**
 * Whether this page is served from a main product domain: from the build's VITE_MAIN_DOMAINS
 * when set, else from the public-data call (the same call the brand uses for visitors).
 * `undefined` while the answer is on its way; a failed call counts as "not main".
 */
export function useIsMainDomain(): boolean | undefined {
  const host = window.location.host
  const configured = CONFIGURED.length > 0
  const query = usePublicDataQuery({ publicDataRequest: { domain_url: host } }, { skip: configured })
  if (configured) return hostIsMain(host, CONFIGURED)
  if (query.isError) return false
  if (query.data === undefined) return undefined
  return query.data.data?.isMainDomain === true
}
