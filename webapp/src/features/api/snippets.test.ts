import { describe, expect, it } from 'vitest'
import { asCurl, asJavaScript, asPython, lookupBody } from './snippets'

const call = {
  origin: 'https://app.example.com',
  accessToken: "bk_abc.se'cret",
  document: '529.982.247-25',
  queryType: 'cpf-complete',
  idempotencyKey: 'pedido-1',
}

describe('playground snippets', () => {
  it('sends the same body every way', () => {
    const body = JSON.stringify(lookupBody(call))
    expect(asPython(call)).toContain(`json=${body}`)
    expect(asJavaScript(call)).toContain(`JSON.stringify(${body})`)
    expect(lookupBody({ ...call, queryType: undefined })).toEqual({ document: '529.982.247-25' })
    expect(lookupBody({ ...call, purpose: 'Análise de crédito' })).toEqual({
      document: '529.982.247-25',
      queryType: 'cpf-complete',
      purpose: 'Análise de crédito',
    })
  })

  it('quotes the token for the shell and names the headers', () => {
    const curl = asCurl(call)
    expect(curl).toContain(`-H 'Authorization: Bearer bk_abc.se'\\''cret'`)
    expect(curl).toContain(`-H 'Idempotency-Key: pedido-1'`)
    expect(curl.startsWith("curl -X POST 'https://app.example.com/api/v1/lookups'")).toBe(true)
  })

  it('leaves the idempotency key out when none is given', () => {
    expect(asCurl({ ...call, idempotencyKey: undefined })).not.toContain('Idempotency-Key')
  })
})
