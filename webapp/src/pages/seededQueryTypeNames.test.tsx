import { render, screen, within } from '@testing-library/react'
import { Provider } from 'react-redux'
import { MemoryRouter } from 'react-router'
import { afterEach, describe, expect, it, vi } from 'vitest'
import i18n from '../i18n'
import { makeStore } from '../store'
import { fakeApi, json } from '../test/fakeApi'
import ApiQueryPage from '../features/api/ApiQueryPage'
import QueryTypesPage from '../features/catalogue/QueryTypesPage'

// The built-in types as the server stores them (seeded in Portuguese), and one a super-admin renamed.
const type = (key: string, name: string, badge: string, description: string) => ({
  key,
  name,
  badge,
  active: true,
  cacheDays: 30,
  validityDays: 90,
  component: key.startsWith('cnpj') ? 'company' : 'person',
  createdAt: '2026-01-01T00:00:00Z',
  updatedAt: '2026-01-01T00:00:00Z',
  default: true,
  description,
  icon: '',
  toggles: { phone: true, cpf: !key.startsWith('cnpj'), cnpj: key.startsWith('cnpj'), benefit: false, status: true },
})
const TYPES = [
  type('cpf-complete', 'Pessoa física completa', 'PF', 'Cadastro, endereços, telefones, participações societárias, renda, score e óbito'),
  type('cnpj-complete', 'Empresa — relatório da casa', 'PJ', 'Relatório da casa, com sócios'),
]
const TOKEN = {
  id: 't1',
  name: 'ERP',
  accessKey: 'bt_live_x',
  status: 'active',
  queryTypes: ['cpf-complete', 'cnpj-complete'],
  limits: { perSecond: null, perDay: null },
  usedToday: 0,
  used30Days: 0,
  lastUsedAt: null,
  createdByName: null,
  createdAt: '2026-01-01T00:00:00Z',
}

function serve() {
  fakeApi((call) => {
    const key = `${call.method} ${call.path}`
    if (key === 'GET /api/query-types') return json({ data: TYPES, page: 1, perPage: 20, total: TYPES.length })
    if (key === 'GET /api/query-types/enabled') return json({ data: TYPES })
    if (key === 'GET /api/api-tokens') return json({ data: [TOKEN] })
  })
}

function renderPage(page: React.ReactElement) {
  render(
    <Provider store={makeStore()}>
      <MemoryRouter>{page}</MemoryRouter>
    </Provider>,
  )
}

afterEach(() => vi.unstubAllGlobals())

describe("a seeded query type's name", () => {
  it.each([
    ['en-US', 'Complete person (CPF)'],
    ['pt-BR', 'Pessoa física completa'],
  ])('shows in %s in the catalogue list, and a renamed one as typed', async (lang, seeded) => {
    await i18n.changeLanguage(lang)
    serve()
    renderPage(<QueryTypesPage />)
    await screen.findAllByTestId('query-type-list-name')
    const names = screen.getAllByTestId('query-type-list-name').map((n) => n.textContent)
    expect(names).toEqual([seeded, 'Empresa — relatório da casa'])
  })

  it.each([
    ['en-US', 'Complete person (CPF)', 'Registration, addresses, phones, company holdings, income, score and death record'],
    ['pt-BR', 'Pessoa física completa', 'Cadastro, endereços, telefones, participações societárias, renda, score e óbito'],
  ])(
    "shows in %s on the API screen: a token's allowed types and the available ones, with their descriptions",
    async (lang, seeded, described) => {
      await i18n.changeLanguage(lang)
      serve()
      renderPage(<ApiQueryPage />)
      const row = await screen.findByTestId('token-row')
      expect(row).toHaveTextContent(`${seeded}, Empresa — relatório da casa`)
      const available = await screen.findByTestId('token-query-types')
      await within(available).findByText(seeded)
      expect(within(available).getByText('Empresa — relatório da casa')).toBeInTheDocument()
      // A seeded type's description in the reader's language; one a super-admin changed as typed.
      expect(available).toHaveTextContent(described)
      expect(available).toHaveTextContent('Relatório da casa, com sócios')
    },
  )
})
