import { fireEvent, render, screen, waitFor } from '@testing-library/react'
import { Provider } from 'react-redux'
import { MemoryRouter, Route, Routes } from 'react-router'
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import i18n from '../../i18n'
import { makeStore } from '../../store'
import type { CustomerDetail } from '../../store/generated/bemteviApi'
import { fakeApi, json, type ApiCall } from '../../test/fakeApi'
import CustomerSetupPage from './CustomerSetupPage'
import { grantsOf, stepErrors } from './setup'
import type { CustomerForm } from './validation'

const GROUP = '0b6a3b52-8f0e-4c11-9d1e-2f6d3c1a7e10'

const form: CustomerForm = {
  type: 'company',
  cnpj: '11.444.777/0001-61',
  companyName: 'Padaria Passo a Passo Ltda',
  tradeName: 'Padaria Passo',
  personInCharge: 'Joana Prado',
  phone: '(31) 98888-7777',
  email: 'joana@padariapasso.com.br',
  seller: null,
  defaultQuery: true,
  consultProtest: false,
  quantities: { unit: 0, batch: 0, advanced: 0, api: 0 },
  enabledQueryTypes: ['cpf-complete'],
  enabledLayouts: [],
  panelAccess: true,
  apiAccess: false,
  whiteLabelUrl: null,
}

const detail: CustomerDetail = {
  id: GROUP,
  uniqueKey: 'k1',
  name: form.companyName,
  companyName: form.companyName,
  tradeName: form.tradeName,
  type: 'company',
  parentId: '3',
  parentName: 'Acme',
  domainUrl: null,
  cnpj: '11444777000161',
  personInCharge: form.personInCharge,
  phone: '31988887777',
  email: form.email,
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

let calls: ApiCall[] = []
/** What the fake server answers a call, when not the default. */
let answers: Record<string, () => Response> = {}

beforeEach(async () => {
  await i18n.changeLanguage('pt-BR')
  answers = {}
  calls = fakeApi((call) => {
    const key = `${call.method} ${call.path}`
    const grant = call.path === '/api/credits/grants' ? `${key} ${(call.body as { category: string }).category}` : key
    if (answers[grant]) return answers[grant]()
    if (answers[key]) return answers[key]()
    if (key === 'GET /api/query-types/enabled') return json({ data: [{ key: 'cpf-complete', name: 'CPF completo' }], upToDate: true })
    if (key === 'GET /api/layouts/enabled') return json({ data: [], upToDate: true })
    if (key === 'POST /api/customers')
      return json({
        data: { id: GROUP, uniqueKey: 'k1', ownerId: 'o1', ownerEmail: form.email, invitationSentTo: form.email },
        position: 10,
      })
    if (key === `GET /api/customers/${GROUP}`) return json({ data: detail, upToDate: true })
    if (key === `PUT /api/customers/${GROUP}`) return json({ position: 11 })
    if (key === 'POST /api/credits/grants') return json({ position: 12 })
    if (key === `GET /api/group/${GROUP}/brand`) return json({ groupId: GROUP, groupName: form.companyName, own: {}, resolved: {}, upToDate: true })
    if (key === 'GET /api/users') return json({ data: [], page: 1, pageSize: 20, total: 0 })
  }).calls
})

afterEach(() => {
  vi.unstubAllGlobals()
  localStorage.clear()
})

function renderAt(path: string) {
  render(
    <Provider store={makeStore()}>
      <MemoryRouter initialEntries={[path]}>
        <Routes>
          <Route path="add-new-customer/setup/:uniqueKey?/:id?" element={<CustomerSetupPage />} />
        </Routes>
      </MemoryRouter>
    </Provider>,
  )
}

const commands = () => calls.filter((c) => c.method !== 'GET').map((c) => `${c.method} ${c.path}`)

function fillCompany() {
  const fill = (testId: string, value: string) => fireEvent.change(screen.getByTestId(testId), { target: { value } })
  fill('customer-cnpj', form.cnpj)
  fill('customer-company-name', form.companyName)
  fill('customer-trade-name', form.tradeName)
  fill('customer-person', form.personInCharge)
  fill('customer-phone', form.phone)
  fill('customer-email', form.email)
}

describe('the rules of each set-up step', () => {
  it('holds the company step on its own fields only, the permissions step on the rest', () => {
    const empty = { ...form, cnpj: '', email: 'no-at-sign', enabledQueryTypes: [], panelAccess: false }
    expect(Object.keys(stepErrors('company', empty)).sort()).toEqual(['cnpj', 'email'])
    expect(Object.keys(stepErrors('permissions', empty)).sort()).toEqual(['access', 'enabledQueryTypes'])
    expect(stepErrors('company', { ...form, type: 'white-label' })).toEqual({ whiteLabelUrl: 'customers.errors.required' })
    expect(stepErrors('permissions', { ...form, quantities: { ...form.quantities, batch: -1 } })).toEqual({
      'quantities.batch': 'customers.errors.quantity',
    })
    expect(stepErrors('company', form)).toEqual({})
    expect(stepErrors('permissions', form)).toEqual({})
  })

  it('grants only the categories with credits to give, in the categories order', () => {
    expect(grantsOf({ unit: 0, batch: 0, advanced: 0, api: 0 })).toEqual([])
    expect(grantsOf({ api: 3, unit: 10, batch: 0, advanced: 1 })).toEqual([
      { category: 'unit', amount: 10 },
      { category: 'advanced', amount: 1 },
      { category: 'api', amount: 3 },
    ])
  })
})

describe('the guided set-up of a customer', () => {
  it('asks nothing of the server while the company step is incomplete', async () => {
    renderAt('/add-new-customer/setup')
    await waitFor(() => expect(screen.getByTestId('setup-next')).toBeEnabled())
    fireEvent.change(screen.getByTestId('customer-cnpj'), { target: { value: '11.444.777/0001-00' } })
    fireEvent.click(screen.getByTestId('setup-next'))
    expect(await screen.findByText('O documento informado é inválido')).toBeInTheDocument()
    expect(screen.getAllByText('Campo obrigatório').length).toBeGreaterThan(0)
    expect(commands()).toEqual([])
    // Typing in a field clears its error; the others keep theirs until the next try.
    const required = screen.getAllByText('Campo obrigatório').length
    fireEvent.change(screen.getByTestId('customer-cnpj'), { target: { value: form.cnpj } })
    expect(screen.queryByText('O documento informado é inválido')).not.toBeInTheDocument()
    fireEvent.change(screen.getByTestId('customer-company-name'), { target: { value: form.companyName } })
    expect(screen.getAllByText('Campo obrigatório')).toHaveLength(required - 1)
  })

  it('keeps what was typed and says why when the registration is refused', async () => {
    answers['POST /api/customers'] = () =>
      json({ statusCode: 409, message: 'CNPJ already registered', code: 'duplicate', field: 'cnpj' }, 409)
    renderAt('/add-new-customer/setup')
    await waitFor(() => expect(screen.getByTestId('setup-next')).toBeEnabled())
    fillCompany()
    fireEvent.click(screen.getByTestId('setup-next'))
    expect(await screen.findByTestId('setup-error')).toHaveTextContent('CNPJ já cadastrado')
    expect(screen.getByTestId('customer-cnpj')).toHaveValue(form.cnpj)
    expect(screen.getByTestId('customer-email')).toHaveValue(form.email)
    expect(screen.getByTestId('setup-company')).toBeInTheDocument()
  })

  it('registers, then saves the permissions before each grant, and keeps the credits a refused grant did not give', async () => {
    answers['POST /api/credits/grants batch'] = () =>
      json({ statusCode: 409, message: 'Not enough credits to provide', code: 'not_enough_to_provide' }, 409)
    renderAt('/add-new-customer/setup')
    await waitFor(() => expect(screen.getByTestId('setup-next')).toBeEnabled())
    fillCompany()
    fireEvent.click(screen.getByTestId('setup-next'))
    const unit = await screen.findByTestId('customer-quantity-unit')
    const registration = calls.find((c) => c.method === 'POST' && c.path === '/api/customers')?.body as Record<string, unknown>
    // Registered with the offered query types and no credits: those move by grants in the next step.
    expect(registration).toMatchObject({ cnpj: form.cnpj, enabledQueryTypes: ['cpf-complete'], locale: 'pt-BR' })
    expect(registration.quantities).toEqual({ unit: 0, batch: 0, advanced: 0, api: 0 })

    // The customer's detail is in (its toggles, chosen by the server at registration) before the step is saved.
    await screen.findByTestId('customer-toggle-allowUploadingManualQueries')
    fireEvent.change(unit, { target: { value: '10' } })
    fireEvent.change(screen.getByTestId('customer-quantity-batch'), { target: { value: '5' } })
    fireEvent.click(screen.getByTestId('setup-next'))
    expect(await screen.findByTestId('setup-error')).toHaveTextContent('Saldo insuficiente')
    expect(commands()).toEqual([
      'POST /api/customers',
      `PUT /api/customers/${GROUP}`,
      'POST /api/credits/grants',
      'POST /api/credits/grants',
    ])
    const grants = calls.filter((c) => c.path === '/api/credits/grants').map((c) => c.body)
    expect(grants).toEqual([
      { groupId: GROUP, category: 'unit', amount: 10 },
      { groupId: GROUP, category: 'batch', amount: 5 },
    ])
    // The unit credits were given (not again on the next save); the batch ones still wait, as typed.
    expect(screen.getByTestId('customer-quantity-unit')).toHaveValue(0)
    expect(screen.getByTestId('customer-quantity-batch')).toHaveValue(5)
    const edited = calls.find((c) => c.method === 'PUT')?.body as Record<string, unknown>
    expect(edited).not.toHaveProperty('quantities')
    expect(edited.toggles).toEqual(detail.toggles)

    // Once there are credits to give again, the step goes on to the brand.
    answers = {}
    fireEvent.click(screen.getByTestId('setup-next'))
    expect(await screen.findByTestId('setup-brand')).toBeInTheDocument()
    expect(commands().slice(4)).toEqual([`PUT /api/customers/${GROUP}`, 'POST /api/credits/grants'])
    expect(calls.filter((c) => c.path === '/api/credits/grants').at(-1)?.body).toEqual({ groupId: GROUP, category: 'batch', amount: 5 })

    // The brand may be skipped; the owner's step says where the invitation went.
    fireEvent.click(screen.getByTestId('setup-skip-brand'))
    expect(await screen.findByTestId('setup-invited')).toHaveTextContent(form.email)
    fireEvent.click(screen.getByTestId('setup-finish'))
    expect(await screen.findByTestId('setup-next-users')).toHaveAttribute('href', `/users/k1/${GROUP}`)
    expect(screen.getByTestId('setup-next-brand')).toHaveAttribute('href', `/add-new-customer/k1/${GROUP}`)
    expect(screen.getByTestId('setup-next-list')).toHaveAttribute('href', '/customer-list')
  })

  it('continues a customer registered before from its permissions, filled from the server', async () => {
    renderAt(`/add-new-customer/setup/k1/${GROUP}`)
    expect(await screen.findByTestId('setup-permissions')).toBeInTheDocument()
    expect(screen.getByTestId('setup-query-cpf-complete')).toBeChecked()
    expect(screen.getByTestId('customer-toggle-allowUploadingManualQueries')).toBeChecked()
    fireEvent.click(screen.getByTestId('setup-step-company'))
    expect(await screen.findByTestId('customer-company-name')).toHaveValue(form.companyName)
    // The invitation went to the owner's e-mail: it is not changed here.
    expect(screen.getByTestId('customer-email')).toBeDisabled()
    expect(commands()).toEqual([])
  })

  it('saves the brand with the editor the brand screens use and goes on to the owner, images left for later', async () => {
    answers[`PUT /api/group/${GROUP}/brand`] = () => json({ position: 13 })
    renderAt(`/add-new-customer/setup/k1/${GROUP}`)
    fireEvent.click(await screen.findByTestId('setup-step-brand'))
    const title = await screen.findByTestId('brand-title')
    expect(screen.getByTestId('setup-domain')).toHaveTextContent('domínio do grupo superior')
    fireEvent.change(title, { target: { value: 'padaria passo consultas' } })
    fireEvent.change(screen.getByTestId('brand-primaryColor'), { target: { value: '#0a5c36' } })
    fireEvent.click(screen.getByTestId('brand-save'))
    expect(await screen.findByTestId('setup-invited')).toHaveTextContent(form.email)
    expect(commands()).toEqual([`PUT /api/group/${GROUP}/brand`])
    expect(calls.find((c) => c.method === 'PUT')?.body).toMatchObject({ appTitle: 'padaria passo consultas', primaryColor: '#0A5C36' })
  })
})
