import { render, screen, within } from '@testing-library/react'
import { describe, expect, it } from 'vitest'
import ResultView from './ResultView'
import i18n from '../i18n'
import { company, consultationOf, person } from '../test/fixtures'
import type { Consultation } from '../types/api'

describe('ResultView', () => {
  it('renders a person with the display rules', () => {
    render(<ResultView consultation={consultationOf(person)} />)
    const result = screen.getByTestId('query-result')
    expect(screen.getByTestId('result-name')).toHaveTextContent('Maria Aparecida da Silva')
    expect(screen.getByTestId('result-document')).toHaveTextContent('529.982.247-25')
    expect(screen.getByTestId('result-birth-date')).toHaveTextContent('07/03/1985')
    // 'NULL', null and '' show '-'; 0 stays '0'
    expect(screen.getByTestId('result-mother')).toHaveTextContent(/^-$/)
    expect(screen.getByTestId('result-father')).toHaveTextContent(/^-$/)
    expect(screen.getByTestId('result-score')).toHaveTextContent(/^0$/)
    expect(within(result).getByText('Feminino')).toBeInTheDocument()
    // empty lists show 'Nada Consta'
    for (const id of ['result-emails', 'result-societies', 'result-protests', 'result-financial-pendings', 'result-death']) {
      expect(within(screen.getByTestId(id)).getByText('Nada Consta')).toBeInTheDocument()
    }
    expect(within(screen.getByTestId('result-check-inquiries')).getByText('0')).toBeInTheDocument()
    expect(within(screen.getByTestId('result-phones')).getByText('(11) 98765-4321')).toBeInTheDocument()
    const addresses = within(screen.getByTestId('result-addresses'))
    expect(addresses.getByText('Rua das Flores')).toBeInTheDocument()
    expect(addresses.getByText('01001-000')).toBeInTheDocument()
    expect(addresses.getByText('-')).toBeInTheDocument() // null complement
    expect(within(result).getByText(/R\$\s?4\.500,50/)).toBeInTheDocument()
  })

  it.each([
    ['pt-BR', null, '--'],
    ['pt-BR', '', '--'],
    ['pt-BR', '1985-02-30', 'Invalid date'],
    ['en-US', null, '--'],
    ['en-US', 'ontem', 'Invalid date'],
  ])('shows a %s birth date of %j as %s', async (lng, birth, shown) => {
    await i18n.changeLanguage(lng)
    try {
      render(<ResultView consultation={consultationOf({ ...person, birth_date: birth })} />)
      expect(screen.getByTestId('result-birth-date')).toHaveTextContent(new RegExp(`^${shown}$`))
    } finally {
      await i18n.changeLanguage('pt-BR')
    }
  })

  it.each([
    ['a person', person],
    ['a company', company],
  ])('shows no protests section for %s whose group does not consult protests', (_, record) => {
    const withoutProtests = { ...record }
    delete withoutProtests.protests
    render(<ResultView consultation={consultationOf(withoutProtests)} />)
    expect(screen.getByTestId('result-phones')).toBeInTheDocument()
    expect(screen.queryByTestId('result-protests')).toBeNull()
    expect(screen.queryByText('Protestos')).toBeNull()
  })

  it('renders the death data when present', () => {
    const dead = { ...person, death: { date: '2020-12-31', book: 'C-12', sheet: '34', registry_office: null } }
    render(<ResultView consultation={consultationOf(dead)} />)
    const death = within(screen.getByTestId('result-death'))
    expect(death.getByText('31/12/2020')).toBeInTheDocument()
    expect(death.getByText('C-12')).toBeInTheDocument()
    expect(death.queryByText('Nada Consta')).toBeNull()
  })

  it('renders a company', () => {
    render(<ResultView consultation={consultationOf(company)} />)
    expect(screen.getByTestId('query-result')).toHaveAttribute('data-document-type', 'cnpj')
    expect(screen.getByTestId('result-name')).toHaveTextContent('Acme Comércio Ltda')
    expect(screen.getByTestId('result-document')).toHaveTextContent('11.222.333/0001-81')
    expect(within(screen.getByTestId('result-company')).getByText('4711-3/02 - Comércio varejista')).toBeInTheDocument()
    expect(within(screen.getByTestId('result-phones')).getByText('Nada Consta')).toBeInTheDocument()
    expect(within(screen.getByTestId('result-partners')).getByText('529.982.247-25')).toBeInTheDocument()
    expect(within(screen.getByTestId('result-emails')).getByText('contato@acme.com.br')).toBeInTheDocument()
  })

  it.each([
    ['cpf', '00000000191', 'Nenhuma informação encontrada para o CPF 000.000.001-91'],
    ['cnpj', '11444777000161', 'Nenhuma informação encontrada para o CNPJ 11.444.777/0001-61'],
  ] as const)('says a valid %s that no source holds was not found, uncharged', (documentType, document, text) => {
    const nothing: Consultation = { ...consultationOf(person), document, documentType, status: 'not_found', credits: 0, result: null }
    render(<ResultView consultation={nothing} />)
    const message = screen.getByTestId('query-not-found')
    expect(message).toHaveTextContent(text)
    expect(message).toHaveTextContent('nenhum crédito foi cobrado')
    expect(screen.queryByTestId('query-result')).toBeNull()
  })

  it('says the source failed when a consultation failed without a result', () => {
    const failed: Consultation = { ...consultationOf(company), status: 'failed', credits: 0, result: null }
    render(<ResultView consultation={failed} />)
    expect(screen.getByTestId('query-not-found')).toHaveTextContent('Erro ao realizar a pesquisa')
  })

  it('shows dates and data values in English for en-US', async () => {
    await i18n.changeLanguage('en-US')
    try {
      render(<ResultView consultation={consultationOf(person)} />)
      const result = screen.getByTestId('query-result')
      expect(screen.getByTestId('result-birth-date')).toHaveTextContent('03/07/1985')
      expect(within(result).getByText('Pisces')).toBeInTheDocument()
      expect(within(result).getByText('College degree')).toBeInTheDocument()
      expect(within(result).queryByText('Peixes')).not.toBeInTheDocument()
    } finally {
      await i18n.changeLanguage('pt-BR')
    }
  })
})
