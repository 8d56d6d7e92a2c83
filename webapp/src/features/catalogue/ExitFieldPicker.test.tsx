import { useState } from 'react'
import { act, fireEvent, render, screen, within } from '@testing-library/react'
import { afterEach, describe, expect, it } from 'vitest'
import i18n from '../../i18n'
import type { ExitFieldView } from '../../store/generated/bemteviApi'
import ExitFieldPicker from './ExitFieldPicker'
import { fold, sourceOf } from './exitFields'
import { EMPTY_ROW, type RowForm } from './validation'

const FIELDS: ExitFieldView[] = [
  {
    key: 'name',
    name: 'NOME',
    names: ['NOME', 'NAME'],
    label: { 'pt-BR': 'Nome / razão social', 'en-US': 'Name / company name' },
    type: 'text',
    format: '',
    size: 60,
    appliesTo: 'both',
  },
  {
    key: 'birth_date',
    name: 'NASCIMENTO',
    names: ['NASCIMENTO', 'DATA_NASCIMENTO', 'BIRTH_DATE'],
    label: { 'pt-BR': 'Data de nascimento', 'en-US': 'Birth date' },
    type: 'date',
    format: 'dd/mm/aaaa',
    size: 10,
    appliesTo: 'person',
  },
  {
    key: 'city',
    name: 'CIDADE',
    names: ['CIDADE', 'MUNICIPIO', 'CITY'],
    label: { 'pt-BR': 'Cidade', 'en-US': 'City' },
    type: 'text',
    format: '',
    size: 40,
    appliesTo: 'both',
  },
]
const ENTRY: RowForm = { ...EMPTY_ROW, name: 'CPF', type: 'document', order: '1' }

/** The picker as the layout form holds it: the exit rows in state, the last change kept for the test. */
function Holder({
  fixed = false,
  initial = [] as RowForm[],
  onRows,
}: {
  fixed?: boolean
  initial?: RowForm[]
  onRows: (rows: RowForm[]) => void
}) {
  const [rows, setRows] = useState<RowForm[]>(initial)
  return (
    <ExitFieldPicker
      fields={FIELDS}
      entries={[ENTRY]}
      rows={rows}
      fixed={fixed}
      onChange={(next) => {
        onRows(next)
        setRows(next)
      }}
    />
  )
}

function pick(text: string, option: RegExp) {
  const input = screen.getByTestId('exit-field-search')
  fireEvent.change(input, { target: { value: text } })
  fireEvent.click(screen.getByRole('option', { name: option }))
}

describe('ExitFieldPicker', () => {
  afterEach(async () => {
    await act(() => i18n.changeLanguage('pt-BR'))
  })

  it('adds catalogue fields by their label, in order, with the date format dd/mm/aaaa', () => {
    const seen = { rows: [] as RowForm[] }
    render(<Holder onRows={(rows) => (seen.rows = rows)} />)
    expect(screen.getByTestId('exit-field-empty')).toBeTruthy()
    pick('nasc', /Data de nascimento/)
    pick('nome', /Nome \/ razão social/)
    expect(seen.rows.map((r) => [r.name, r.type, r.format, r.order, r.direction])).toEqual([
      ['NASCIMENTO', 'date', 'dd/mm/aaaa', '1', 'exit'],
      ['NOME', 'text', '', '2', 'exit'],
    ])
    const items = screen.getAllByTestId('exit-field-item')
    expect(items.map((i) => i.dataset.name)).toEqual(['NASCIMENTO', 'NOME'])
    expect((within(items[0]).getByTestId('exit-field-format') as HTMLInputElement).value).toBe('dd/mm/aaaa')
  })

  it('orders with the arrows and removes, numbering the rows by the list', () => {
    const seen = { rows: [] as RowForm[] }
    render(<Holder onRows={(rows) => (seen.rows = rows)} />)
    pick('cid', /Cidade/)
    pick('CPF', /CPF/)
    pick('nome', /Nome/)
    fireEvent.click(screen.getAllByTestId('exit-field-up')[1])
    expect(seen.rows.map((r) => `${r.order}:${r.name}`)).toEqual(['1:CPF', '2:CIDADE', '3:NOME'])
    fireEvent.click(screen.getAllByTestId('exit-field-remove')[1])
    expect(seen.rows.map((r) => `${r.order}:${r.name}`)).toEqual(['1:CPF', '2:NOME'])
  })

  it('offers a field once and gives it its width in a fixed-width layout', () => {
    const seen = { rows: [] as RowForm[] }
    render(<Holder onRows={(rows) => (seen.rows = rows)} fixed />)
    pick('cidade', /Cidade/)
    expect(seen.rows[0].size).toBe('40')
    fireEvent.change(screen.getByTestId('exit-field-search'), { target: { value: 'cidade' } })
    expect(screen.getByRole('option', { name: /Cidade/ }).getAttribute('aria-disabled')).toBe('true')
  })

  it('flags a typed name the catalogue lacks and shows labels in English', async () => {
    await act(() => i18n.changeLanguage('en-US'))
    const seen = { rows: [] as RowForm[] }
    const typed: RowForm = { ...EMPTY_ROW, name: 'apelido', order: '1', direction: 'exit' }
    const known: RowForm = { ...EMPTY_ROW, name: 'data-nascimento', type: 'date', order: '2', direction: 'exit' }
    render(<Holder onRows={(rows) => (seen.rows = rows)} initial={[typed, known]} />)
    const [first, second] = screen.getAllByTestId('exit-field-item')
    expect(first.textContent).toContain('Not in the catalogue')
    expect(second.textContent).toContain('Birth date')
  })
})

describe('exit field names', () => {
  it('fold as the server does: accents, case, spaces and hyphens', () => {
    expect(fold(' Endereço-número ')).toBe('ENDERECO_NUMERO')
    expect(sourceOf(FIELDS, ['cpf'], 'Município').kind).toBe('field')
    expect(sourceOf(FIELDS, ['cpf'], 'CPF').kind).toBe('entry')
    expect(sourceOf(FIELDS, ['cpf'], 'XYZ').kind).toBe('unknown')
  })
})
