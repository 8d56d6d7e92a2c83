import { fireEvent, render, screen, waitFor, within } from '@testing-library/react'
import { Provider } from 'react-redux'
import { MemoryRouter, Route, Routes } from 'react-router'
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import i18n from '../../i18n'
import { makeStore } from '../../store'
import { fakeApi, json } from '../../test/fakeApi'
import LayoutFormPage from './LayoutFormPage'

let api: ReturnType<typeof fakeApi>

beforeEach(async () => {
  await i18n.changeLanguage('pt-BR')
  api = fakeApi((call) => {
    const key = `${call.method} ${call.path}`
    if (key === 'GET /api/layouts/exit-fields') return json({ data: [] })
    if (key === 'POST /api/layouts/preview-record') {
      const kind = (call.body as { kind: string }).kind
      const document = kind === 'cnpj' ? '11222333000181' : '52998224725'
      return json({ data: { charged: false, document, exitLine: document, found: true, header: null, unknown: [], values: [{ name: 'cpf', value: document }] } })
    }
    if (key === 'POST /api/layouts/preview') {
      const sample = (call.body as { sample: string }).sample
      return json({ data: { exitLine: sample.slice(0, 11), values: { cpf: sample.slice(0, 11) } } })
    }
    if (key === 'POST /api/layouts') return json({ data: { id: 'l1' }, position: 5 })
  })
})

afterEach(() => vi.unstubAllGlobals())

function renderForm() {
  render(
    <Provider store={makeStore()}>
      <MemoryRouter initialEntries={['/add-new-layout']}>
        <Routes>
          <Route path="add-new-layout/:uniqueKey?/:id?" element={<LayoutFormPage />} />
          <Route path="layout-list" element={<p data-testid="at-list" />} />
        </Routes>
      </MemoryRouter>
    </Provider>,
  )
}

describe('the layout form', () => {
  it('edits its entry rows one by one, flags a row by its own field and saves them all', async () => {
    renderForm()
    fireEvent.click(screen.getByTestId('layout-row-add'))
    fireEvent.click(screen.getByTestId('layout-row-add'))
    let rows = screen.getAllByTestId('layout-row-form')
    expect(rows).toHaveLength(3)
    // A new row comes numbered after the others; removing the middle one keeps the rest as typed.
    expect(within(rows[2]).getByTestId('layout-row-order')).toHaveValue(3)
    fireEvent.click(within(rows[1]).getByTestId('layout-row-remove'))
    rows = screen.getAllByTestId('layout-row-form')
    expect(rows).toHaveLength(2)
    expect(within(rows[1]).getByTestId('layout-row-order')).toHaveValue(3)

    fireEvent.change(screen.getByTestId('layout-file-name'), { target: { value: 'clientes' } })
    fireEvent.change(screen.getByTestId('layout-final-file-name'), { target: { value: 'clientes-enriquecidos' } })
    fireEvent.change(screen.getByTestId('layout-table-name'), { target: { value: 'pessoas' } })
    fireEvent.change(screen.getByTestId('layout-kind'), { target: { value: 'fixed' } })
    fireEvent.change(within(rows[1]).getByTestId('layout-row-name'), { target: { value: 'nome' } })
    fireEvent.change(within(rows[1]).getByTestId('layout-row-type'), { target: { value: 'text' } })
    fireEvent.click(screen.getByTestId('layout-save'))
    // A fixed-width row needs its size: the second row says so, the first (11 wide) does not.
    expect(await within(rows[1]).findByText('Informe o tamanho (1 a 1000)')).toBeInTheDocument()
    expect(within(rows[0]).queryByText('Informe o tamanho (1 a 1000)')).not.toBeInTheDocument()
    expect(api.posts('/api/layouts')).toEqual([])

    fireEvent.change(within(rows[1]).getByTestId('layout-row-size'), { target: { value: '20' } })
    expect(within(rows[1]).queryByText('Informe o tamanho (1 a 1000)')).not.toBeInTheDocument()
    fireEvent.click(screen.getByTestId('layout-save'))
    await screen.findByTestId('at-list')
    expect(api.posts('/api/layouts')).toEqual([
      {
        fileName: 'clientes',
        finalFileName: 'clientes-enriquecidos',
        returnExtension: 'csv',
        acceptedExtension: 'csv',
        kind: 'fixed',
        delimiter: '',
        firstLine: true,
        table: 'pessoas',
        rows: [
          { name: 'cpf', type: 'document', order: 1, format: '', size: 11, direction: 'entry' },
          { name: 'nome', type: 'text', order: 3, format: '', size: 20, direction: 'entry' },
          { name: 'cpf', type: 'document', order: 1, format: '', size: 11, direction: 'exit' },
        ],
      },
    ])
  })

  it('previews a demo record of the kind chosen and a typed sample line, through the layout as typed', async () => {
    renderForm()
    expect(await screen.findByTestId('layout-record-line')).toHaveTextContent('52998224725')
    expect(api.posts('/api/layouts/preview-record').at(-1)).toMatchObject({ kind: 'cpf', layout: { kind: 'delimited', rows: [{ name: 'cpf' }, { name: 'cpf' }] } })
    fireEvent.click(screen.getByTestId('layout-record-cnpj'))
    await waitFor(() => expect(screen.getByTestId('layout-record-line')).toHaveTextContent('11222333000181'))
    expect(api.posts('/api/layouts/preview')).toEqual([])

    fireEvent.change(screen.getByTestId('layout-sample'), { target: { value: '01234567890;Ana' } })
    expect(await screen.findByTestId('layout-preview-exit')).toHaveTextContent('01234567890')
    expect(screen.getByTestId('layout-preview-values')).toHaveTextContent('cpf')
    expect(api.posts('/api/layouts/preview').at(-1)).toMatchObject({ sample: '01234567890;Ana', layout: { fileName: '', delimiter: ';' } })
  })
})
