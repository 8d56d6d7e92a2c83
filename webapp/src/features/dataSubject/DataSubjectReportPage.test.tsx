import { fireEvent, render, screen, waitFor, within } from '@testing-library/react'
import { Provider } from 'react-redux'
import { MemoryRouter } from 'react-router'
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import i18n from '../../i18n'
import { makeStore } from '../../store'
import type { DataSubjectResponse } from '../../store/generated/bemteviApi'
import { user } from '../../test/fixtures'
import DataSubjectReportPage from './DataSubjectReportPage'

const CPF = '52998224725'
const report: DataSubjectResponse = {
  document: CPF,
  documentType: 'cpf',
  position: 42,
  data: [
    {
      consultationId: 'c-2',
      createdAt: '2026-11-27T13:00:00Z',
      groupId: 'g-1',
      groupName: 'Empresa Número 41 Ltda',
      userId: 'u-1',
      userName: 'Responsável 41',
      userEmail: 'dono41@empresa41.com.br',
      channel: 'panel',
      queryType: 'cpf-complete',
      status: 'done',
      purpose: 'Análise de crédito do contrato 4512',
      keptUntil: '2027-02-25T13:00:00Z',
    },
    {
      consultationId: 'k-3',
      createdAt: '2026-11-24T12:00:00Z',
      groupId: 'g-1',
      groupName: 'Empresa Número 41 Ltda',
      userId: 'u-1',
      userName: 'Responsável 41',
      userEmail: 'dono41@empresa41.com.br',
      channel: 'batch',
      queryType: 'cpf-complete',
      status: 'done',
      purpose: 'Recadastro anual',
      keptUntil: null,
      batchId: 'b-7',
      fileName: 'clientes.csv',
      origin: 'manual',
    },
    {
      consultationId: 'c-1',
      createdAt: '2026-11-20T12:00:00Z',
      groupId: 'g-2',
      groupName: 'Empresa Número 42 Ltda',
      userId: 'u-2',
      userName: 'Responsável 42',
      userEmail: 'dono42@empresa42.com.br',
      channel: 'api',
      queryType: 'cpf-complete',
      status: 'done',
      purpose: null,
      keptUntil: null,
    },
  ],
}

let requests: URL[] = []

beforeEach(async () => {
  await i18n.changeLanguage('pt-BR')
  requests = []
  localStorage.setItem('authToken', 'tok-1')
  localStorage.setItem('authUser', JSON.stringify({ ...user, role: 'super-admin' }))
  vi.stubGlobal(
    'fetch',
    vi.fn(async (input: Request | string) => {
      const url = new URL(typeof input === 'string' ? input : input.url, 'http://localhost')
      requests.push(url)
      if (url.pathname === '/api/audit/data-subject/export') {
        const pdf = url.searchParams.get('format') === 'pdf'
        return new Response(pdf ? '%PDF-1.4' : 'a;b', {
          headers: {
            'Content-Type': pdf ? 'application/pdf' : 'text/csv',
            'Content-Disposition': `attachment; filename="relatorio_titular_${CPF}.${pdf ? 'pdf' : 'csv'}"`,
            ...(pdf ? { 'X-Signature': 'c2lnbmF0dXJl', 'X-Signature-Key-Id': 'abc123' } : {}),
          },
        })
      }
      if (url.pathname === '/api/audit/data-subject') {
        return new Response(JSON.stringify(report), { headers: { 'Content-Type': 'application/json' } })
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
        <DataSubjectReportPage />
      </MemoryRouter>
    </Provider>,
  )
}

const reportCalls = () => requests.filter((u) => u.pathname === '/api/audit/data-subject')

describe('the data-subject report screen', () => {
  it('masks the document and refuses an invalid one without asking the server', async () => {
    renderPage()
    const field = screen.getByTestId('data-subject-document')
    fireEvent.change(field, { target: { value: '52998224700' } })
    expect(field).toHaveValue('529.982.247-00')
    fireEvent.click(screen.getByTestId('data-subject-search'))
    expect(await screen.findByTestId('data-subject-document-error')).toHaveTextContent('CPF ou CNPJ inválido')
    fireEvent.change(field, { target: { value: '123' } })
    fireEvent.click(screen.getByTestId('data-subject-search'))
    expect(await screen.findByTestId('data-subject-document-error')).toHaveTextContent('Digite um CPF (11 dígitos) ou um CNPJ (14 dígitos)')
    expect(screen.getByText('Digite o documento do titular para ver quem o consultou.')).toBeInTheDocument()
    expect(reportCalls()).toHaveLength(0)
  })

  it('lists who consulted the CPF, in which company, for what purpose, and which results are still held', async () => {
    renderPage()
    fireEvent.change(screen.getByTestId('data-subject-document'), { target: { value: '529.982.247-25' } })
    fireEvent.click(screen.getByTestId('data-subject-search'))
    const rows = await screen.findAllByTestId('data-subject-row', {}, { timeout: 20_000 })
    expect(rows).toHaveLength(3)
    expect(reportCalls()[0].searchParams.get('document')).toBe(CPF)
    expect(screen.getByTestId('data-subject-summary')).toHaveTextContent('3 consultas de 529.982.247-25 · 1 resultado ainda guardado')
    expect(within(rows[0]).getByText(/Responsável 41/)).toBeInTheDocument()
    expect(within(rows[0]).getByText('Empresa Número 41 Ltda')).toBeInTheDocument()
    expect(within(rows[0]).getByText('Painel')).toBeInTheDocument()
    expect(within(rows[0]).getByText('25/02/2027, 10:00')).toBeInTheDocument()
    expect(within(rows[0]).getByText('Análise de crédito do contrato 4512')).toBeInTheDocument()
    // A batch's document: the batch's purpose, and which batch (its id on hover).
    expect(within(rows[1]).getByText('Lote')).toBeInTheDocument()
    expect(within(rows[1]).getByText('Recadastro anual')).toBeInTheDocument()
    expect(within(rows[1]).getByTestId('data-subject-batch')).toHaveTextContent('Enriquecimento manual: clientes.csv')
    expect(within(rows[1]).getByTestId('data-subject-batch')).toHaveAttribute('title', 'Lote b-7')
    expect(within(rows[2]).getByText('Não guardado')).toBeInTheDocument()
    expect(within(rows[2]).getByText('Não informada')).toBeInTheDocument()
    expect(within(rows[2]).getByText('API')).toBeInTheDocument()
  })

  it('exports the signed PDF and the CSV of the document asked for', async () => {
    const created = vi.fn(() => 'blob:report')
    vi.stubGlobal('URL', Object.assign(URL, { createObjectURL: created, revokeObjectURL: vi.fn() }))
    renderPage()
    fireEvent.change(screen.getByTestId('data-subject-document'), { target: { value: CPF } })
    fireEvent.click(screen.getByTestId('data-subject-search'))
    fireEvent.click(await screen.findByTestId('data-subject-pdf', {}, { timeout: 20_000 }))
    await waitFor(() => expect(created).toHaveBeenCalledTimes(1))
    // The file is handed over before the export ends: the buttons stay disabled until it has.
    await waitFor(() => expect(screen.getByTestId('data-subject-csv')).toBeEnabled())
    fireEvent.click(screen.getByTestId('data-subject-csv'))
    await waitFor(() => expect(created).toHaveBeenCalledTimes(2))
    const exports = requests.filter((u) => u.pathname === '/api/audit/data-subject/export')
    expect(exports.map((u) => [u.searchParams.get('document'), u.searchParams.get('format'), u.searchParams.get('lang')])).toEqual([
      [CPF, 'pdf', 'pt-BR'],
      [CPF, 'csv', 'pt-BR'],
    ])
    expect(screen.getByTestId('data-subject-signed-note')).toHaveTextContent('Ed25519')
    // The saved file has no headers: the signature is shown to go along with it.
    expect(screen.getByTestId('data-subject-signature')).toHaveTextContent('chave abc123')
    expect(screen.getByTestId('data-subject-signature-value')).toHaveTextContent('c2lnbmF0dXJl')
    // One run for one search: the answer's position (the run's own audit event) does not start another.
    expect(reportCalls()).toHaveLength(1)
  })

  it('speaks English in en-US', async () => {
    await i18n.changeLanguage('en-US')
    renderPage()
    expect(screen.getByRole('heading', { name: 'Data-subject report (LGPD)' })).toBeInTheDocument()
    fireEvent.change(screen.getByTestId('data-subject-document'), { target: { value: CPF } })
    fireEvent.click(screen.getByTestId('data-subject-search'))
    await screen.findAllByTestId('data-subject-row', {}, { timeout: 20_000 })
    expect(screen.getByTestId('data-subject-summary')).toHaveTextContent('3 queries of 529.982.247-25 · 1 result still held')
    expect(screen.getByTestId('data-subject-batch')).toHaveTextContent('Manual enrichment: clientes.csv')
    expect(screen.getAllByText('Not held')).toHaveLength(2)
    expect(screen.getByText('Not given')).toBeInTheDocument()
    expect(screen.getByTestId('data-subject-pdf')).toHaveTextContent('Export signed PDF')
  })
})
