import { fireEvent, render, screen, waitFor, within } from '@testing-library/react'
import { Provider } from 'react-redux'
import { MemoryRouter, Route, Routes } from 'react-router'
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import i18n from '../../i18n'
import { makeStore } from '../../store'
import { fakeApi, json } from '../../test/fakeApi'
import SupplierFormPage from './SupplierFormPage'

const layout = (id: string, fileName: string, ready: Record<string, string> | null) => ({
  id,
  fileName,
  readyTitle: ready,
  ready: ready ? id : null,
  acceptedExtension: 'csv',
  returnExtension: 'csv',
  active: true,
  createdAt: '2026-01-01T00:00:00Z',
  updatedAt: '2026-01-01T00:00:00Z',
  delimiter: ';',
  finalFileName: fileName,
  firstLine: true,
  kind: 'delimited',
  rows: [],
  table: 'people',
})
const LAYOUTS = [
  layout('l-basic', 'cpf_basico', { 'pt-BR': 'CPF básico', 'en-US': 'Basic CPF' }),
  layout('l-own', 'carteira_cobranca', null),
]
const SUPPLIER = {
  id: 's1',
  name: 'Fornecedor A',
  contact: 'Ana',
  url: 'https://fornecedor.example/api',
  server: 'fornecedor.example',
  port: 443,
  route: '/pessoa',
  httpMethod: 'GET',
  authMethod: 'bearer',
  inputType: 'both',
  username: '',
  passwordSet: false,
  tokenSet: true,
  prefix: '',
  embeddedInUrlBase: false,
  baseComplement: '',
  requestBody: '',
  // One layout of the catalogue and one id it no longer lists.
  allowedLayouts: ['l-basic', 'removed-layout'],
  allowedQueryTypes: ['cpf-complete'],
  cacheDays: 30,
  validityDays: 90,
  maxBodyKb: 1024,
  active: true,
  createdAt: '2026-01-01T00:00:00Z',
  updatedAt: '2026-01-01T00:00:00Z',
}

let api: ReturnType<typeof fakeApi>

beforeEach(() => {
  api = fakeApi((call) => {
    const key = `${call.method} ${call.path}`
    if (key === 'GET /api/layouts') return json({ data: LAYOUTS, page: 1, perPage: 100, total: 2, upToDate: true })
    if (key === 'GET /api/suppliers/s1') return json({ data: SUPPLIER })
    if (key === 'PUT /api/suppliers/s1') return json({ id: 's1', position: 4 })
  })
})

afterEach(() => vi.unstubAllGlobals())

describe("a supplier's allowed layouts", () => {
  it.each([
    ['pt-BR', 'CPF básico (CSV)'],
    ['en-US', 'Basic CPF (CSV)'],
  ])('are chosen by name in %s from the catalogue and saved by id', async (lang, basic) => {
    await i18n.changeLanguage(lang)
    render(
      <Provider store={makeStore()}>
        <MemoryRouter initialEntries={['/add-new-supplier/x/s1']}>
          <Routes>
            <Route path="add-new-supplier/:uniqueKey?/:id?" element={<SupplierFormPage />} />
            <Route path="supplier-list" element={<p data-testid="at-list" />} />
          </Routes>
        </MemoryRouter>
      </Provider>,
    )
    await waitFor(() => expect(screen.getAllByTestId('supplier-layout-chip').map((c) => c.textContent)).toEqual([basic, 'removed-layout']))
    const picker = screen.getByTestId('supplier-layouts')
    fireEvent.mouseDown(within(picker).getByRole('combobox'))
    const options = await screen.findAllByTestId('supplier-layout-option')
    // The chosen ones are not offered again.
    expect(options.map((o) => o.textContent)).toEqual(['carteira_cobranca (CSV)'])
    fireEvent.click(options[0])
    expect(screen.getAllByTestId('supplier-layout-chip')).toHaveLength(3)

    fireEvent.click(screen.getByTestId('supplier-submit'))
    await screen.findByTestId('at-list')
    const [body] = api.calls.filter((c) => c.method === 'PUT').map((c) => c.body as { allowedLayouts: string[] })
    expect(body.allowedLayouts).toEqual(['l-basic', 'removed-layout', 'l-own'])
  })
})
