import { fireEvent, render, screen, waitFor, within } from '@testing-library/react'
import { Provider } from 'react-redux'
import { MemoryRouter } from 'react-router'
import { afterEach, describe, expect, it, vi } from 'vitest'
import { ConfirmDialog, Notifications } from '../../components/feedback'
import MuiProvider from '../../components/mui/MuiProvider'
import i18n from '../../i18n'
import { makeStore } from '../../store'
import { fakeApi, json } from '../../test/fakeApi'
import type { BatchRow } from './api'
import BatchList from './BatchList'

// Two enrichments that are over: one active (its return file offered), one inactivated.
const base: BatchRow = {
  id: 'b-1',
  active: true,
  canCancel: false,
  canDelete: true,
  canToggle: true,
  createdAt: '2026-11-27T13:00:00Z',
  creditsCharged: 10,
  creditsReserved: 12,
  done: 12,
  extension: 'csv',
  fileName: 'clientes.csv',
  finishedAt: '2026-11-27T13:01:00Z',
  found: 10,
  groupId: 'g-1',
  groupName: 'Acme',
  invalid: 0,
  kind: 'batch',
  layoutId: 'l-1',
  layoutName: 'CPF básico',
  message: null,
  observation: '',
  queryType: null,
  records: 12,
  returnFileName: 'clientes-retorno.csv',
  startedAt: '2026-11-27T13:00:10Z',
  status: 'available',
  userId: 'u-1',
  userName: 'Maria Souza',
}
const inactive: BatchRow = { ...base, id: 'b-2', active: false, fileName: 'antigos.csv', returnFileName: 'antigos-retorno.csv' }

function serve() {
  const api = fakeApi((call) => {
    const key = `${call.method} ${call.path}`
    if (key === 'GET /api/batches') return json({ data: [base, inactive], page: 1, perPage: 20, total: 2, upToDate: true })
    if (call.method === 'POST' && call.path.endsWith('/status')) return json({ position: 7 })
  })
  // What the list sent about batches (the frame's brand read is a POST too).
  return { ...api, batchCommands: () => api.commands().filter((c) => c.includes('/api/batches')) }
}

function renderList() {
  render(
    <Provider store={makeStore()}>
      <MemoryRouter>
        <MuiProvider>
          <BatchList kind="batch" title="Lotes" />
          <ConfirmDialog />
          <Notifications />
        </MuiProvider>
      </MemoryRouter>
    </Provider>,
  )
}

async function rowOf(name: string) {
  const rows = await screen.findAllByTestId('batch-row')
  const row = rows.find((r) => r.textContent?.includes(name))
  if (!row) throw new Error(`no row for ${name}`)
  return row
}

afterEach(() => vi.unstubAllGlobals())

describe('activating and inactivating an enrichment on the batch list', () => {
  it.each([
    ['pt-BR', 'Inativo', 'Inativar', 'Ativar'],
    ['en-US', 'Inactive', 'Inactivate', 'Activate'],
  ])('in %s marks the inactive row, offers it Activate and hides its return file', async (lng, chip, inactivate, activate) => {
    await i18n.changeLanguage(lng)
    serve()
    renderList()
    const off = await rowOf('antigos.csv')
    expect(within(off).getByTestId('batch-inactive')).toHaveTextContent(chip)
    expect(within(off).getByTestId('batch-activate')).toHaveTextContent(activate)
    expect(within(off).queryByTestId('batch-download-return')).not.toBeInTheDocument()
    const on = await rowOf('clientes.csv')
    expect(within(on).queryByTestId('batch-inactive')).not.toBeInTheDocument()
    expect(within(on).getByTestId('batch-inactivate')).toHaveTextContent(inactivate)
    expect(within(on).getByTestId('batch-download-return')).toBeInTheDocument()
  })

  it('asks first; after "Não" nothing is sent', async () => {
    await i18n.changeLanguage('pt-BR')
    const api = serve()
    renderList()
    fireEvent.click(within(await rowOf('clientes.csv')).getByTestId('batch-inactivate'))
    const dialog = await screen.findByTestId('confirm-dialog')
    expect(dialog).toHaveTextContent('Inativar clientes.csv?')
    fireEvent.click(within(dialog).getByTestId('confirm-no'))
    await waitFor(() => expect(screen.queryByTestId('confirm-dialog')).not.toBeInTheDocument())
    expect(api.batchCommands()).toEqual([])
  })

  it.each([
    ['clientes.csv', 'batch-inactivate', 'b-1', false, 'Enriquecimento inativado.'],
    ['antigos.csv', 'batch-activate', 'b-2', true, 'Enriquecimento ativado.'],
  ])('after "Sim" on %s sends its new status and says so', async (name, action, id, active, said) => {
    await i18n.changeLanguage('pt-BR')
    const api = serve()
    renderList()
    fireEvent.click(within(await rowOf(name)).getByTestId(action))
    const dialog = await screen.findByTestId('confirm-dialog')
    expect(dialog).toHaveTextContent(name)
    fireEvent.click(within(dialog).getByTestId('confirm-yes'))
    await waitFor(() => expect(api.batchCommands()).toEqual([`POST /api/batches/${id}/status`]))
    expect(api.posts(`/api/batches/${id}/status`)).toEqual([{ active }])
    expect(await screen.findByText(said)).toBeInTheDocument()
  })
})
