import type { SupplierData, SupplierRequest } from '../../store/generated/bemteviApi'

/** The supplier form: the API's request with every field present (secrets: '' = keep the stored one). */
export type SupplierForm = Required<Omit<SupplierRequest, 'password' | 'token' | 'port' | 'cacheDays' | 'validityDays' | 'maxBodyKb'>> & {
  password: string
  token: string
  port: string
  cacheDays: string
  validityDays: string
  maxBodyKb: string
}

/** The most a supplier's answer body may be, in KB (the server's bound). */
export const MAX_BODY_KB = 16 * 1024

export const EMPTY_SUPPLIER: SupplierForm = {
  name: '',
  contact: '',
  url: '',
  server: '',
  port: '',
  route: '',
  httpMethod: 'GET',
  authMethod: 'bearer',
  inputType: 'both',
  username: '',
  password: '',
  token: '',
  prefix: '',
  embeddedInUrlBase: false,
  baseComplement: '',
  requestBody: '',
  allowedLayouts: [],
  allowedQueryTypes: [],
  cacheDays: '30',
  validityDays: '90',
  maxBodyKb: '1024',
}

function isJson(text: string): boolean {
  try {
    JSON.parse(text.split('{document}').join('00000000000'))
    return true
  } catch {
    return false
  }
}

const whole = (text: string) => /^\d+$/.test(text.trim())

/**
 * The supplier form's rules (specification section 5: contact, URL, auth method, username, token,
 * prefix, server, port, route, type required; bearer token required; request body valid JSON; cache
 * not above validity; the answer size cap within the server's bound): field -> i18n key of the message. ``stored`` says which secrets are already
 * kept (an edit may leave them blank).
 */
export function supplierErrors(form: SupplierForm, stored: { password: boolean; token: boolean } = { password: false, token: false }): Record<string, string> {
  const errors: Record<string, string> = {}
  const required = ['name', 'contact', 'url', 'server', 'route'] as const
  for (const field of required) if (!form[field].trim()) errors[field] = 'suppliers.errors.required'
  if (!errors.name && form.name.trim().length < 3) errors.name = 'suppliers.errors.nameShort'
  if (!errors.url && !/^https?:\/\/[^\s/]+/.test(form.url.trim())) errors.url = 'suppliers.errors.url'
  if (!form.port.trim()) errors.port = 'suppliers.errors.required'
  else if (!whole(form.port) || Number(form.port) < 1 || Number(form.port) > 65535) errors.port = 'suppliers.errors.port'
  const hasToken = !!form.token || stored.token
  if (form.authMethod === 'basic') {
    if (!form.username.trim()) errors.username = 'suppliers.errors.required'
    if (!form.password && !stored.password) errors.password = 'suppliers.errors.required'
  } else if (form.authMethod === 'bearer') {
    if (!hasToken) errors.token = 'suppliers.errors.bearer'
  } else {
    if (form.authMethod === 'prefix' && !form.prefix.trim()) errors.prefix = 'suppliers.errors.required'
    if (!hasToken) errors.token = 'suppliers.errors.required'
  }
  if (form.requestBody.trim() && !isJson(form.requestBody)) errors.requestBody = 'suppliers.errors.json'
  else if (!form.requestBody.trim() && form.httpMethod === 'POST') errors.requestBody = 'suppliers.errors.required'
  for (const field of ['cacheDays', 'validityDays'] as const) {
    if (!form[field].trim()) errors[field] = 'suppliers.errors.required'
    else if (!whole(form[field])) errors[field] = 'suppliers.errors.days'
  }
  if (!errors.cacheDays && !errors.validityDays && Number(form.cacheDays) > Number(form.validityDays))
    errors.cacheDays = 'suppliers.errors.cacheAboveValidity'
  if (!whole(form.maxBodyKb) || Number(form.maxBodyKb) < 1 || Number(form.maxBodyKb) > MAX_BODY_KB)
    errors.maxBodyKb = 'suppliers.errors.maxBody'
  if (form.allowedQueryTypes.length === 0) errors.allowedQueryTypes = 'suppliers.errors.queryTypes'
  return errors
}

/** The request from the form: blank secrets are left out (the stored ones are kept). */
export function requestOf(form: SupplierForm): SupplierRequest {
  return {
    ...form,
    port: Number(form.port),
    cacheDays: Number(form.cacheDays),
    validityDays: Number(form.validityDays),
    maxBodyKb: Number(form.maxBodyKb),
    password: form.authMethod === 'basic' && form.password ? form.password : null,
    token: form.authMethod !== 'basic' && form.token ? form.token : null,
  }
}

/** The form's values from a stored supplier (edit mode): secrets stay blank, they are never answered. */
export function formOf(data: SupplierData): SupplierForm {
  return {
    name: data.name,
    contact: data.contact,
    url: data.url,
    server: data.server,
    port: String(data.port),
    route: data.route,
    httpMethod: data.httpMethod,
    authMethod: data.authMethod,
    inputType: data.inputType,
    username: data.username,
    password: '',
    token: '',
    prefix: data.prefix,
    embeddedInUrlBase: data.embeddedInUrlBase,
    baseComplement: data.baseComplement,
    requestBody: data.requestBody,
    allowedLayouts: data.allowedLayouts,
    allowedQueryTypes: data.allowedQueryTypes,
    cacheDays: String(data.cacheDays),
    validityDays: String(data.validityDays),
    maxBodyKb: String(data.maxBodyKb),
  }
}
