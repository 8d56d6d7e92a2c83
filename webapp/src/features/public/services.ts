/** The eight advertised services (spec section 1) and the trial, as the contact API names them. */
export const SERVICE_KEYS = [
  'dynamic-queries',
  'batch-enrichment',
  'mailing-lists',
  'enrichment-layouts',
  'online-system',
  'api',
  'automatic-dialer',
  'sms',
] as const

export type ServiceKey = (typeof SERVICE_KEYS)[number]
export type ContactService = ServiceKey | 'trial'

export const CONTACT_SERVICES: readonly ContactService[] = [...SERVICE_KEYS, 'trial']

export function isContactService(value: string | null | undefined): value is ContactService {
  return (CONTACT_SERVICES as readonly string[]).includes(value ?? '')
}

/** Where the demo-request buttons go: the contact form with the trial preselected. */
export const DEMO_LINK = '/contact?service=trial'
