import { fireEvent, render, screen, waitFor, within } from '@testing-library/react'
import { Provider } from 'react-redux'
import { MemoryRouter } from 'react-router'
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import MuiProvider from '../../components/mui/MuiProvider'
import i18n from '../../i18n'
import { makeStore } from '../../store'
import { AUDIT_EVENT_KINDS } from '../../store/generated/auditEventKinds'
import type { AuditResponse, AuditRow } from '../../store/generated/bemteviApi'
import { user } from '../../test/fixtures'
import AuditLogPage from './AuditLogPage'

const submitted: AuditRow = {
  position: 12,
  createdAt: '2026-11-27T13:00:00Z',
  tenantId: 'g-3',
  tenantName: 'Acme',
  actorId: 'u-1',
  actorName: 'Maria Souza',
  actorEmail: 'maria@acme.com.br',
  aggregateType: 'Batch',
  eventType: 'Submitted',
  aggregateId: 'b-1',
  targetType: 'batch',
  targetId: 'b-1',
  targetName: 'clientes.csv',
  changes: [
    { field: 'layout_id', before: null, after: 'CPF básico', kind: 'value' },
    { field: 'records', before: null, after: '1200', kind: 'value' },
    { field: 'credits_reserved', before: null, after: '1200', kind: 'value' },
  ],
  details: { layout_id: 'CPF básico', records: '1200', credits_reserved: '1200', kind: 'batch' },
}
const finished: AuditRow = {
  ...submitted,
  position: 13,
  actorId: null,
  actorName: null,
  actorEmail: null,
  eventType: 'Finished',
  changes: [{ field: 'charged', before: null, after: '1100', kind: 'value' }],
  details: { records: '1200', found: '1100', charged: '1100', invalid: '0' },
}

let requests: URL[] = []

beforeEach(async () => {
  requests = []
  localStorage.setItem('authToken', 'tok-1')
  localStorage.setItem('authUser', JSON.stringify({ ...user, role: 'owner' }))
  vi.stubGlobal(
    'fetch',
    vi.fn(async (input: Request | string) => {
      const url = new URL(typeof input === 'string' ? input : input.url, 'http://localhost')
      requests.push(url)
      if (url.pathname === '/api/audit') {
        const body: AuditResponse = {
          data: [finished, submitted],
          total: 2,
          page: 1,
          perPage: 50,
          actors: [{ id: 'u-1', name: 'Maria Souza' }],
          types: ['Batch'],
          kinds: [...AUDIT_EVENT_KINDS],
          upToDate: true,
        }
        return new Response(JSON.stringify(body), { headers: { 'Content-Type': 'application/json' } })
      }
      return new Response(JSON.stringify({ statusCode: 404, message: 'Not found', code: 'not_found' }), { status: 404 })
    }),
  )
})

afterEach(() => {
  vi.unstubAllGlobals()
  localStorage.clear()
})

function renderPage() {
  render(
    <Provider store={makeStore()}>
      <MemoryRouter>
        <MuiProvider>
          <AuditLogPage />
        </MuiProvider>
      </MemoryRouter>
    </Provider>,
  )
}

describe('the audit log screen', () => {
  it.each([
    [
      'pt-BR',
      'Maria Souza enviou o lote clientes.csv (1.200 registros) com o layout CPF básico',
      'Lote clientes.csv concluído: 1.200 registros, 1.100 encontrados, 1.100 créditos cobrados',
      'Créditos cobrados: 1.100',
    ],
    [
      'en-US',
      'Maria Souza uploaded batch clientes.csv (1,200 records) with layout CPF básico',
      'Batch clientes.csv finished: 1,200 records, 1,100 found, 1,100 credits charged',
      'Credits charged: 1,100',
    ],
  ])('in %s says each event as a sentence and labels its details', async (lng, sent, done, charged) => {
    await i18n.changeLanguage(lng)
    renderPage()
    const rows = await screen.findAllByTestId('audit-row', {}, { timeout: 20_000 })
    expect(rows).toHaveLength(2)
    expect(within(rows[1]).getByTestId('audit-sentence')).toHaveTextContent(sent)
    expect(within(rows[0]).getByTestId('audit-sentence')).toHaveTextContent(done)
    expect(rows[0]).toHaveTextContent(charged)
    expect(rows[1]).toHaveTextContent('Layout: CPF básico')
    for (const row of rows) expect(row.textContent).not.toMatch(/Batch · |records_done|credits_reserved|layout_id|Submitted/)
  })

  it('filters by any kind of event the log can show, and by who', async () => {
    await i18n.changeLanguage('pt-BR')
    renderPage()
    await screen.findAllByTestId('audit-row', {}, { timeout: 20_000 })
    const kinds = screen.getByTestId('audit-type') as HTMLSelectElement
    const offered = [...kinds.querySelectorAll('option')].map((o) => o.value).filter((v) => v.includes('.'))
    expect(offered.sort()).toEqual([...AUDIT_EVENT_KINDS].sort())
    expect(within(kinds).getByRole('option', { name: 'Lote enviado' })).toBeInTheDocument()
    fireEvent.change(kinds, { target: { value: 'Batch.Submitted' } })
    await waitFor(() => expect(requests.at(-1)?.searchParams.get('type')).toBe('Batch.Submitted'))
    fireEvent.change(screen.getByTestId('audit-user'), { target: { value: 'u-1' } })
    await waitFor(() => expect(requests.at(-1)?.searchParams.get('user_id')).toBe('u-1'))
  })

  it('exports the rows as CSV or XLSX in the screen\'s language, with its filters', async () => {
    await i18n.changeLanguage('en-US')
    renderPage()
    await screen.findAllByTestId('audit-row', {}, { timeout: 20_000 })
    fireEvent.change(screen.getByTestId('audit-user'), { target: { value: 'u-1' } })
    const exported = () => requests.filter((u) => u.pathname === '/api/audit/export').map((u) => Object.fromEntries(u.searchParams))
    fireEvent.click(screen.getByTestId('export-xlsx'))
    await waitFor(() => expect(exported()).toEqual([expect.objectContaining({ format: 'xlsx', lang: 'en-US', user_id: 'u-1' })]))
    await waitFor(() => expect(screen.getByTestId('list-export')).toBeEnabled())
    fireEvent.click(screen.getByTestId('list-export'))
    await waitFor(() => expect(exported().at(-1)).toEqual(expect.objectContaining({ format: 'csv', lang: 'en-US' })))
  })
})
