import { fireEvent, render, screen, waitFor } from '@testing-library/react'
import { Provider } from 'react-redux'
import { MemoryRouter } from 'react-router'
import { afterEach, describe, expect, it, vi } from 'vitest'
import { makeStore } from '../store'
import { consultationOf, person } from '../test/fixtures'
import { fakeApi, json } from '../test/fakeApi'
import NormalQueryPage from './NormalQueryPage'

const view = (key: string, name: string, badge: string, isDefault: boolean) => ({
  key,
  name,
  description: '',
  icon: 'person',
  badge,
  toggles: { phone: true, cpf: true, cnpj: false, benefit: false, status: true },
  component: 'person',
  cacheDays: 1,
  validityDays: 1,
  default: isDefault,
  active: true,
  createdAt: '2024-01-01 00:00:00',
  updatedAt: '2024-01-01 00:00:00',
})
const TYPES = [view('cpf-complete', 'Pessoa física completa', 'PF', true), view('cpf-basic', 'Pessoa física básica', 'PB', false)]

function serve(usesDefault: boolean) {
  return fakeApi((call) => {
    const key = `${call.method} ${call.path}`
    if (key === 'GET /api/query-types/enabled') return json({ data: TYPES, usesDefault, upToDate: true })
    if (key === 'GET /api/group-settings/purpose') return json({ required: false, maxLength: 200 })
    if (key === 'POST /api/consultations') return json({ data: consultationOf(person), position: 1 })
  })
}

function show() {
  render(
    <Provider store={makeStore()}>
      <MemoryRouter>
        <NormalQueryPage />
      </MemoryRouter>
    </Provider>,
  )
}

afterEach(() => vi.unstubAllGlobals())

describe('the unit query screen and the group default query', () => {
  it('pre-selects the document default, named once the document is typed', async () => {
    const api = serve(true)
    show()
    const select = await screen.findByTestId('query-type')
    await waitFor(() => expect(select.querySelectorAll('option')).toHaveLength(3))
    expect(select).toHaveValue('')
    fireEvent.change(screen.getByTestId('query-document'), { target: { value: '529.982.247-25' } })
    expect(screen.getByRole('option', { name: 'Padrão do documento: PF · Pessoa física completa' })).toBeInTheDocument()
    fireEvent.click(screen.getByTestId('query-submit'))
    await waitFor(() => expect(api.posts('/api/consultations')).toHaveLength(1))
    expect(api.posts('/api/consultations')[0]).not.toHaveProperty('query_type')
  })

  it('offers no default to a group that chooses each lookup type, and sends the chosen one', async () => {
    const api = serve(false)
    show()
    const select = await screen.findByTestId('query-type')
    await waitFor(() => expect(select).toHaveValue('cpf-complete'))
    expect(screen.queryByRole('option', { name: /Padrão do documento/ })).toBeNull()
    fireEvent.change(select, { target: { value: 'cpf-basic' } })
    fireEvent.change(screen.getByTestId('query-document'), { target: { value: '529.982.247-25' } })
    fireEvent.click(screen.getByTestId('query-submit'))
    await waitFor(() => expect(api.posts('/api/consultations')).toHaveLength(1))
    expect(api.posts('/api/consultations')[0]).toMatchObject({ query_type: 'cpf-basic' })
  })
})
