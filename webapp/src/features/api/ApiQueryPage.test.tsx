import { render, screen, within } from '@testing-library/react'
import { Provider } from 'react-redux'
import { MemoryRouter } from 'react-router'
import { afterEach, describe, expect, it, vi } from 'vitest'
import i18n from '../../i18n'
import { makeStore } from '../../store'
import { fakeApi, json } from '../../test/fakeApi'
import ApiQueryPage from './ApiQueryPage'

// The public API's schema as the server serves it: its texts are en-US; one operation the web app has no words for.
const SCHEMA = {
  paths: {
    '/lookups': {
      post: {
        operationId: 'lookup_lookups_post',
        summary: 'Unit query (schema)',
        description: 'A query by CPF or CNPJ, as the schema says it (`data.credits`).',
      },
    },
    '/novelty': { get: { operationId: 'novelty_get', summary: 'Novelty', description: 'Not yet translated.' } },
  },
}

function serve() {
  fakeApi((call) => {
    const key = `${call.method} ${call.path}`
    if (key === 'GET /api/v1/openapi.json') return json(SCHEMA)
    if (key === 'GET /api/query-types/enabled') return json({ data: [] })
    if (key === 'GET /api/api-tokens') return json({ data: [] })
  })
}

afterEach(() => vi.unstubAllGlobals())

describe('the API documentation on the API screen', () => {
  it.each([
    ['pt-BR', 'Consulta unitária', 'Consulta por CPF ou CNPJ', 'schema'],
    ['en-US', 'Unit query (schema)', 'A query by CPF or CNPJ, as the schema says it (data.credits).', 'Consulta'],
  ])('says each operation in %s (en-US as the schema does), and one it has no words for as the schema does', async (lang, summary, text, absent) => {
    await i18n.changeLanguage(lang)
    serve()
    render(
      <Provider store={makeStore()}>
        <MemoryRouter>
          <ApiQueryPage />
        </MemoryRouter>
      </Provider>,
    )
    const docs = await screen.findByTestId('api-docs')
    const rows = await within(docs).findAllByRole('row')
    expect(rows).toHaveLength(2)
    expect(rows[0]).toHaveTextContent(summary)
    expect(rows[0]).toHaveTextContent(text)
    expect(rows[0]).not.toHaveTextContent(absent)
    // The schema's `quoted` parts read as code, without their backticks.
    expect(within(rows[0]).getByText('data.credits').tagName).toBe('CODE')
    expect(rows[0]).not.toHaveTextContent('`')
    expect(rows[1]).toHaveTextContent('Novelty Not yet translated.')
  })
})
