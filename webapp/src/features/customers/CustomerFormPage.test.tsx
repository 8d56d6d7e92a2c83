import { fireEvent, render, screen } from '@testing-library/react'
import { Provider } from 'react-redux'
import { MemoryRouter, Route, Routes } from 'react-router'
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import i18n from '../../i18n'
import { makeStore } from '../../store'
import type { CustomerDetail } from '../../store/generated/bemteviApi'
import { fakeApi, json } from '../../test/fakeApi'
import CustomerFormPage from './CustomerFormPage'

const GROUP = '5d1c7a0e-2b3f-4c8d-9e6a-7f1b2c3d4e5f'

const detail: CustomerDetail = {
  id: GROUP,
  uniqueKey: 'k9',
  name: 'Mercado Uma Página Ltda',
  companyName: 'Mercado Uma Página Ltda',
  tradeName: 'Mercado Uma Página',
  type: 'company',
  parentId: '3',
  parentName: 'Acme',
  domainUrl: null,
  cnpj: '11444777000161',
  personInCharge: 'Rui Costa',
  phone: '31988887777',
  email: 'rui@mercado.com.br',
  defaultQuery: true,
  consultProtest: false,
  panelAccess: true,
  apiAccess: false,
  enabledQueryTypes: ['cpf-complete'],
  active: true,
  createdAt: '2026-11-28T10:00:00Z',
  toggles: { allowCreatedWhiteLabel: false, allowUploadingManualQueries: true, allowDeletedAndCancelled: false },
  brand: {},
  resolvedBrand: {},
  parentEnabledQueryTypes: ['cpf-complete'],
  enabledLayouts: [],
  parentEnabledLayouts: [],
  parentToggles: { allowCreatedWhiteLabel: true, allowUploadingManualQueries: true, allowDeletedAndCancelled: true },
  credits: [],
}

let answers: Record<string, () => Response> = {}
let api: ReturnType<typeof fakeApi>

beforeEach(async () => {
  await i18n.changeLanguage('pt-BR')
  answers = {}
  api = fakeApi((call) => {
    const key = `${call.method} ${call.path}`
    if (answers[key]) return answers[key]()
    if (key === 'GET /api/query-types/enabled') return json({ data: [{ key: 'cpf-complete', name: 'CPF completo' }], upToDate: true })
    if (key === 'GET /api/layouts/enabled') return json({ data: [], upToDate: true })
    if (key === 'POST /api/customers')
      return json({ data: { id: GROUP, uniqueKey: 'k9', ownerId: 'o1', ownerEmail: detail.email, invitationSentTo: detail.email }, position: 10 })
    if (key === `GET /api/customers/${GROUP}`) return json({ data: detail, upToDate: true })
    if (key === `PUT /api/customers/${GROUP}`) return json({ position: 11 })
    if (key === `GET /api/group/${GROUP}/brand`) return json({ groupId: GROUP, groupName: detail.companyName, own: {}, resolved: {}, upToDate: true })
  })
})

afterEach(() => vi.unstubAllGlobals())

function renderAt(path: string) {
  render(
    <Provider store={makeStore()}>
      <MemoryRouter initialEntries={[path]}>
        <Routes>
          <Route path="add-new-customer/:uniqueKey?/:id?" element={<CustomerFormPage />} />
          <Route path="customer-list" element={<p data-testid="at-list" />} />
        </Routes>
      </MemoryRouter>
    </Provider>,
  )
}

const fill = (testId: string, value: string) => fireEvent.change(screen.getByTestId(testId), { target: { value } })

describe('the one-page customer form', () => {
  it('checks the company rows before asking the server, then registers with what was typed, masked', async () => {
    renderAt('/add-new-customer')
    await screen.findByText('CPF completo')
    fireEvent.click(screen.getByTestId('customer-submit'))
    expect((await screen.findAllByText('Campo obrigatório')).length).toBeGreaterThan(0)
    expect(api.commands()).toEqual([])

    fill('customer-cnpj', '11444777000161')
    expect(screen.getByTestId('customer-cnpj')).toHaveValue('11.444.777/0001-61')
    fill('customer-company-name', detail.companyName)
    fill('customer-trade-name', detail.tradeName ?? '')
    fill('customer-person', detail.personInCharge ?? '')
    fill('customer-phone', '31988887777')
    fill('customer-email', detail.email ?? '')
    fireEvent.change(screen.getByLabelText('Vendedor'), { target: { value: 'Bia' } })
    fill('customer-quantity-unit', '7')
    fireEvent.click(screen.getByTestId('customer-submit'))
    expect(await screen.findByTestId('customer-invited')).toHaveTextContent(detail.email ?? '')
    expect(api.commands()).toEqual(['POST /api/customers'])
    expect(api.calls.find((c) => c.method === 'POST')?.body).toEqual({
      type: 'company',
      cnpj: '11.444.777/0001-61',
      companyName: detail.companyName,
      tradeName: detail.tradeName,
      personInCharge: detail.personInCharge,
      phone: '(31) 98888-7777',
      email: detail.email,
      seller: 'Bia',
      defaultQuery: true,
      consultProtest: false,
      quantities: { unit: 7, batch: 0, advanced: 0, api: 0 },
      enabledQueryTypes: ['cpf-complete'],
      enabledLayouts: [],
      panelAccess: true,
      apiAccess: false,
      whiteLabelUrl: null,
      locale: 'pt-BR',
    })
  })

  it('says which field a refused registration found taken', async () => {
    answers['POST /api/customers'] = () => json({ statusCode: 409, message: 'CNPJ already registered', code: 'duplicate', field: 'cnpj' }, 409)
    renderAt('/add-new-customer')
    await screen.findByText('CPF completo')
    fill('customer-cnpj', '11444777000161')
    fill('customer-company-name', detail.companyName)
    fill('customer-trade-name', detail.tradeName ?? '')
    fill('customer-person', detail.personInCharge ?? '')
    fill('customer-phone', '31988887777')
    fill('customer-email', detail.email ?? '')
    fireEvent.click(screen.getByTestId('customer-submit'))
    expect(await screen.findByTestId('customer-error')).toHaveTextContent('CNPJ já cadastrado')
  })

  it('edits a customer filled from the server: its toggles sent, no credits, the white-label domain asked', async () => {
    renderAt(`/add-new-customer/k9/${GROUP}`)
    expect(await screen.findByTestId('customer-company-name')).toHaveValue(detail.companyName)
    expect(screen.getByTestId('customer-cnpj')).toHaveValue('11.444.777/0001-61')
    expect(screen.getByTestId('customer-email')).toBeEnabled()
    expect(screen.queryByTestId('customer-quantity-unit')).not.toBeInTheDocument()
    fireEvent.click(screen.getByTestId('customer-toggle-allowCreatedWhiteLabel'))
    fireEvent.change(screen.getByTestId('customer-type'), { target: { value: 'white-label' } })
    fireEvent.click(screen.getByTestId('customer-submit'))
    expect(await screen.findByText('Campo obrigatório')).toBeInTheDocument()
    expect(api.commands()).toEqual([])
    fill('customer-url', 'consultas.mercado.com.br')
    fireEvent.click(screen.getByTestId('customer-submit'))
    await screen.findByTestId('at-list')
    expect(api.commands()).toEqual([`PUT /api/customers/${GROUP}`])
    const body = api.calls.find((c) => c.method === 'PUT')?.body as Record<string, unknown>
    expect(body).not.toHaveProperty('quantities')
    expect(body).toMatchObject({ type: 'white-label', whiteLabelUrl: 'consultas.mercado.com.br', enabledQueryTypes: ['cpf-complete'] })
    expect(body.toggles).toEqual({ ...detail.toggles, allowCreatedWhiteLabel: true })
  })
})
