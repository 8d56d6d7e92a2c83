import { fireEvent, render, screen, waitFor } from '@testing-library/react'
import { Provider } from 'react-redux'
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import i18n from '../i18n'
import { makeStore } from '../store'
import TwoFactorSwitch from './TwoFactorSwitch'

afterEach(() => {
  vi.unstubAllGlobals()
})
beforeEach(async () => {
  await i18n.changeLanguage('pt-BR')
})

function serve(status = 200) {
  let enabled = false
  const calls: { method: string; path: string; body: unknown }[] = []
  vi.stubGlobal(
    'fetch',
    vi.fn(async (input: Request) => {
      const url = new URL(input.url)
      const text = input.method === 'GET' ? '' : await input.text()
      const body = text ? JSON.parse(text) : undefined
      calls.push({ method: input.method, path: url.pathname, body })
      if (input.method === 'PUT' && status !== 200)
        return new Response(JSON.stringify({ statusCode: status, message: 'x', code: 'group_not_found' }), {
          status,
          headers: { 'Content-Type': 'application/json' },
        })
      if (input.method === 'PUT') enabled = (body as { enabled: boolean }).enabled
      const answer = input.method === 'PUT' ? { position: 3 } : { groupId: 'g-9', enabled }
      return new Response(JSON.stringify(answer), { status: 200, headers: { 'Content-Type': 'application/json' } })
    }),
  )
  return calls
}

describe('TwoFactorSwitch', () => {
  it("reads the group's setting and saves it as switched", async () => {
    const calls = serve()
    render(
      <Provider store={makeStore()}>
        <TwoFactorSwitch groupId="g-9" />
      </Provider>,
    )
    const input = (await screen.findByTestId('two-factor-switch')) as HTMLInputElement
    await waitFor(() => expect(input).toBeEnabled())
    expect(input.checked).toBe(false)
    expect(screen.getByText('Exigir um código enviado por e-mail ao entrar')).toBeInTheDocument()
    fireEvent.click(input)
    await waitFor(() => expect((screen.getByTestId('two-factor-switch') as HTMLInputElement).checked).toBe(true))
    expect(calls.find((c) => c.method === 'PUT')).toEqual({ method: 'PUT', path: '/api/group/g-9/two-factor', body: { enabled: true } })
  })

  it('says a refusal below the switch', async () => {
    serve(404)
    render(
      <Provider store={makeStore()}>
        <TwoFactorSwitch groupId="g-9" />
      </Provider>,
    )
    const input = await screen.findByTestId('two-factor-switch')
    await waitFor(() => expect(input).toBeEnabled())
    fireEvent.click(input)
    expect(await screen.findByText('O grupo não existe')).toBeInTheDocument()
  })
})
