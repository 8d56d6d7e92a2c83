import { fireEvent, render, screen, waitFor, within } from '@testing-library/react'
import { Provider } from 'react-redux'
import { MemoryRouter, Route, Routes } from 'react-router'
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import i18n from '../../i18n'
import { makeStore } from '../../store'
import { fakeApi, json } from '../../test/fakeApi'
import QueryTypeFormPage from './QueryTypeFormPage'

let api: ReturnType<typeof fakeApi>

beforeEach(() => {
  api = fakeApi((call) => {
    if (`${call.method} ${call.path}` === 'POST /api/query-types') return json({ id: 'pf-basica', position: 3 })
  })
})

afterEach(() => vi.unstubAllGlobals())

const fill = (testId: string, value: string) => fireEvent.change(screen.getByTestId(testId), { target: { value } })

describe("a query type's icon", () => {
  it.each([
    ['pt-BR', 'Empresa', 'Escolha um ícone'],
    ['en-US', 'Company', 'Choose an icon'],
  ])('is picked in %s from drawn icons with their names, and saved by its name', async (lang, business, pick) => {
    await i18n.changeLanguage(lang)
    render(
      <Provider store={makeStore()}>
        <MemoryRouter initialEntries={['/add-new-query']}>
          <Routes>
            <Route path="add-new-query/:key?" element={<QueryTypeFormPage />} />
            <Route path="queries-list" element={<p data-testid="at-list" />} />
          </Routes>
        </MemoryRouter>
      </Provider>,
    )
    const field = await screen.findByTestId('query-type-icon')
    expect(field).toHaveTextContent(pick)
    // Nothing to type: a list of icons, each drawn beside its name.
    fireEvent.mouseDown(within(field).getByRole('combobox'))
    const options = await screen.findAllByRole('option')
    expect(options.length).toBeGreaterThan(5)
    const company = screen.getByRole('option', { name: business })
    expect(company.querySelector('svg')).not.toBeNull()
    fireEvent.click(company)
    expect(field).toHaveTextContent(business)

    fill('query-type-name', 'Pessoa jurídica básica')
    fill('query-type-badge', 'PJ')
    fill('query-type-description', 'Cadastro da empresa')
    fireEvent.click(screen.getByTestId('query-type-save'))
    await screen.findByTestId('at-list')
    await waitFor(() => expect(api.posts('/api/query-types')).toHaveLength(1))
    expect(api.posts('/api/query-types')[0].icon).toBe('business')
  })
})
