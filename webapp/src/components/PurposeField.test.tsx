import { fireEvent, render, screen, waitFor } from '@testing-library/react'
import { Provider } from 'react-redux'
import { MemoryRouter } from 'react-router'
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import i18n from '../i18n'
import NormalQueryPage from '../pages/NormalQueryPage'
import { makeStore } from '../store'
import { user } from '../test/fixtures'
import { foldPurpose, purposeProblem } from '../lib/purpose'

describe('a typed purpose, checked as the server records it', () => {
  it('is its words joined, and refused only when required and empty, or too long', () => {
    expect(foldPurpose('  Análise de\n crédito  ')).toBe('Análise de crédito')
    expect(purposeProblem('   ', false, 200)).toBeNull()
    expect(purposeProblem(' \t ', true, 200)).toBe('required')
    expect(purposeProblem(`${'x'.repeat(200)}   `, true, 200)).toBeNull()
    expect(purposeProblem('x'.repeat(201), false, 200)).toBe('tooLong')
  })
})

let requests: { url: URL; body: unknown }[] = []
let required = true

beforeEach(async () => {
  await i18n.changeLanguage('pt-BR')
  requests = []
  localStorage.setItem('authToken', 'tok-1')
  localStorage.setItem('authUser', JSON.stringify(user))
  vi.stubGlobal(
    'fetch',
    vi.fn(async (input: Request | string) => {
      const request = typeof input === 'string' ? null : input
      const url = new URL(typeof input === 'string' ? input : input.url, 'http://localhost')
      const body = request && request.method === 'POST' ? await request.clone().json() : null
      requests.push({ url, body })
      const json = (data: unknown) => new Response(JSON.stringify(data), { headers: { 'Content-Type': 'application/json' } })
      if (url.pathname === '/api/group/purpose-setting') return json({ groupId: '3', purposeRequired: required, purposeMaxLength: 200 })
      if (url.pathname === '/api/consultations') {
        return json({
          data: { id: 'c-1', document: '52998224725', documentType: 'cpf', queryType: 'cpf-complete', status: 'not_found', credits: 0, createdAt: '2026-11-28T10:00:00Z', result: null },
          position: 9,
        })
      }
      return json({ data: [] })
    }),
  )
})

afterEach(() => {
  vi.unstubAllGlobals()
  localStorage.clear()
})

function renderPage() {
  render(
    <Provider store={makeStore()}>
      <MemoryRouter>
        <NormalQueryPage />
      </MemoryRouter>
    </Provider>,
  )
}

const lookups = () => requests.filter((r) => r.url.pathname === '/api/consultations')

describe('the unit query form', () => {
  it('asks for the purpose when the group requires it, and sends it folded', async () => {
    renderPage()
    fireEvent.change(screen.getByTestId('query-document'), { target: { value: '52998224725' } })
    await waitFor(() => expect(screen.getByLabelText(/Finalidade da consulta/)).toBeRequired())
    fireEvent.click(screen.getByTestId('query-submit'))
    expect(await screen.findByTestId('query-purpose-help')).toHaveTextContent('Informe a finalidade')
    expect(lookups()).toHaveLength(0)
    fireEvent.change(screen.getByTestId('query-purpose'), { target: { value: '  Análise de   crédito ' } })
    fireEvent.click(screen.getByTestId('query-submit'))
    await waitFor(() => expect(lookups()).toHaveLength(1))
    expect(lookups()[0].body).toEqual({ document: '52998224725', purpose: 'Análise de crédito' })
  })

  it('sends no purpose when none is typed and the group does not require one', async () => {
    required = false
    await i18n.changeLanguage('en-US')
    renderPage()
    expect(await screen.findByLabelText('Purpose of the query (optional)')).not.toBeRequired()
    fireEvent.change(screen.getByTestId('query-document'), { target: { value: '52998224725' } })
    fireEvent.click(screen.getByTestId('query-submit'))
    await waitFor(() => expect(lookups()).toHaveLength(1))
    expect(lookups()[0].body).toEqual({ document: '52998224725' })
    required = true
  })
})
