import { useState } from 'react'
import type { ReactElement } from 'react'
import { fireEvent, render as rtlRender, screen, within } from '@testing-library/react'
import { ThemeProvider } from '@mui/material/styles'
import { afterEach, describe, expect, it, vi } from 'vitest'
import type { GridColDef } from '@mui/x-data-grid'
import i18n from '../i18n'
import { DEFAULT_BRAND } from '../lib/brand'
import ListPage from './ListPage'
import { brandTheme, type AppLanguage } from './mui/brandTheme'

/** Drawn in the theme and language MuiProvider gives the signed-in layout. */
function render(ui: ReactElement, language: AppLanguage = 'pt-BR') {
  return rtlRender(<ThemeProvider theme={brandTheme(DEFAULT_BRAND, language)}>{ui}</ThemeProvider>)
}

interface Row {
  id: string
  name: string
}

const columns: GridColDef<Row>[] = [{ field: 'name', headerName: 'Nome', flex: 1 }]
const ALL: Row[] = Array.from({ length: 45 }, (_, i) => ({ id: String(i + 1), name: `Pessoa ${i + 1}` }))

/** A page with server paging over ALL, 20 a page, as the list screens call the API. */
function Paged({ onPage }: { onPage?: (page: number) => void }) {
  const [page, setPage] = useState(1)
  const rows = ALL.slice((page - 1) * 20, page * 20)
  return (
    <ListPage<Row>
      title="Pessoas"
      columns={columns}
      rows={rows}
      loading={false}
      paging={{
        total: ALL.length,
        page,
        pageSize: 20,
        onPage: (p) => {
          onPage?.(p)
          setPage(p)
        },
      }}
      rowTestId="person-row"
    />
  )
}

afterEach(async () => {
  await i18n.changeLanguage('pt-BR')
})

describe('ListPage', () => {
  it('shows one server page and asks for the next one', () => {
    const onPage = vi.fn()
    render(<Paged onPage={onPage} />)
    expect(screen.getAllByTestId('person-row')).toHaveLength(20)
    expect(screen.getByText('Pessoa 1')).toBeInTheDocument()
    expect(screen.getByText(/1–20 de 45/)).toBeInTheDocument()
    fireEvent.click(screen.getByRole('button', { name: /próxima página/i }))
    expect(onPage).toHaveBeenCalledWith(2)
    expect(screen.getByText('Pessoa 21')).toBeInTheDocument()
    expect(screen.queryByText('Pessoa 1')).not.toBeInTheDocument()
    expect(screen.getByText(/21–40 de 45/)).toBeInTheDocument()
  })

  it('says so when nothing was found, in the page’s words', () => {
    render(<ListPage<Row> title="Pessoas" columns={columns} rows={[]} loading={false} emptyText="Nenhuma pessoa encontrada." />)
    expect(screen.getByTestId('list-empty')).toHaveTextContent('Nenhuma pessoa encontrada.')
    expect(screen.queryByRole('grid')).not.toBeInTheDocument()
  })

  it('an empty list says what to do next, with the action that does it', () => {
    const add = vi.fn()
    render(
      <ListPage<Row>
        title="Pessoas"
        columns={columns}
        rows={[]}
        loading={false}
        emptyText="Nenhuma pessoa ainda: cadastre a primeira."
        emptyAction={<button onClick={add}>Nova pessoa</button>}
      />,
    )
    expect(screen.getByTestId('list-empty-text')).toHaveTextContent('Nenhuma pessoa ainda: cadastre a primeira.')
    fireEvent.click(within(screen.getByTestId('list-empty')).getByRole('button', { name: 'Nova pessoa' }))
    expect(add).toHaveBeenCalled()
  })

  it('a cut cell text keeps the whole text for its tooltip', () => {
    const long = 'clientes_com_nome_de_arquivo_muito_comprido.csv'
    render(<ListPage<Row> title="Arquivos" columns={columns} rows={[{ id: '1', name: long }]} loading={false} />)
    // The default text cell (components/textCell.tsx): one span with the whole text, clamped by CSS.
    expect(screen.getByText(long).tagName).toBe('SPAN')
  })

  it('shows the error and retries on request', () => {
    const retry = vi.fn()
    render(<ListPage<Row> title="Pessoas" columns={columns} rows={undefined} loading={false} error="Sem conexão" onRetry={retry} />)
    const alert = screen.getByRole('alert')
    expect(alert).toHaveTextContent('Sem conexão')
    fireEvent.click(within(alert).getByRole('button', { name: 'Tentar de novo' }))
    expect(retry).toHaveBeenCalledOnce()
  })

  it('exports the rows on screen as CSV', () => {
    const created: Blob[] = []
    const createObjectURL = vi.fn((blob: Blob) => {
      created.push(blob)
      return 'blob:x'
    })
    Object.assign(URL, { createObjectURL, revokeObjectURL: vi.fn() })
    render(
      <ListPage<Row>
        title="Pessoas"
        columns={columns}
        rows={ALL.slice(0, 2)}
        loading={false}
        csv={{ base: 'pessoas', columns: [{ field: 'name', label: 'Nome' }] }}
      />,
    )
    fireEvent.click(screen.getByTestId('list-export'))
    expect(created).toHaveLength(1)
    expect(created[0].type).toContain('text/csv')
  })

  it('speaks English in the en-US theme', async () => {
    await i18n.changeLanguage('en-US')
    render(<Paged />, 'en-US')
    expect(screen.getByText(/1–20 of 45/)).toBeInTheDocument()
    expect(screen.getByRole('button', { name: /next page/i })).toBeEnabled()
  })
})
