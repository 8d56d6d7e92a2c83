/** The playground's request, written out as curl, Python and JavaScript for the user to copy. */
export interface LookupCall {
  /** The API's origin, e.g. https://app.example.com */
  origin: string
  accessToken: string
  document: string
  queryType?: string
  /** What the lookup is for (shown to the data subject); sent when given. */
  purpose?: string
  idempotencyKey?: string
}

export function lookupBody(call: LookupCall): Record<string, string> {
  const body: Record<string, string> = { document: call.document }
  if (call.queryType) body.queryType = call.queryType
  if (call.purpose) body.purpose = call.purpose
  return body
}

function headers(call: LookupCall): Record<string, string> {
  const all: Record<string, string> = {
    Authorization: `Bearer ${call.accessToken}`,
    'Content-Type': 'application/json',
  }
  if (call.idempotencyKey) all['Idempotency-Key'] = call.idempotencyKey
  return all
}

const quoteShell = (value: string) => `'${value.replaceAll("'", `'\\''`)}'`

export function asCurl(call: LookupCall): string {
  const lines = [`curl -X POST ${quoteShell(`${call.origin}/api/v1/lookups`)}`]
  for (const [name, value] of Object.entries(headers(call))) lines.push(`  -H ${quoteShell(`${name}: ${value}`)}`)
  lines.push(`  -d ${quoteShell(JSON.stringify(lookupBody(call)))}`)
  return lines.join(' \\\n')
}

export function asPython(call: LookupCall): string {
  return [
    'import requests',
    '',
    'response = requests.post(',
    `    ${JSON.stringify(`${call.origin}/api/v1/lookups`)},`,
    `    headers=${JSON.stringify(headers(call))},`,
    `    json=${JSON.stringify(lookupBody(call))},`,
    '    timeout=30,',
    ')',
    'print(response.status_code, response.json())',
  ].join('\n')
}

export function asJavaScript(call: LookupCall): string {
  return [
    `const response = await fetch(${JSON.stringify(`${call.origin}/api/v1/lookups`)}, {`,
    "  method: 'POST',",
    `  headers: ${JSON.stringify(headers(call))},`,
    `  body: JSON.stringify(${JSON.stringify(lookupBody(call))}),`,
    '})',
    'console.log(response.status, await response.json())',
  ].join('\n')
}
