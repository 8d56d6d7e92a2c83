export const REDIRECT_PARAM = 'redirect'

/** Only same-site absolute paths are followed after login. */
export function safeRedirect(target: string | null | undefined): string {
  if (!target || !target.startsWith('/') || target.startsWith('//') || target.startsWith('/\\')) return '/dashboard'
  if (target === '/login' || target.startsWith('/login?') || target.startsWith('/login/')) return '/dashboard'
  return target
}
