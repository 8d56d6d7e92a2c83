import { fireEvent, render, screen } from '@testing-library/react'
import { afterEach, describe, expect, it, vi } from 'vitest'
import { CellText } from './CellText'

/** jsdom lays nothing out: the text's box is given the sizes a browser would measure. */
function measured(scrollWidth: number, clientWidth: number) {
  vi.spyOn(HTMLElement.prototype, 'scrollWidth', 'get').mockReturnValue(scrollWidth)
  vi.spyOn(HTMLElement.prototype, 'clientWidth', 'get').mockReturnValue(clientWidth)
}

afterEach(() => vi.restoreAllMocks())

describe('CellText', () => {
  const name = 'clientes_com_nome_de_arquivo_muito_comprido.csv'

  it('shows the whole text on hover when the cell cuts it', async () => {
    measured(420, 120)
    render(<CellText text={name} lines={1} testId="cell" />)
    fireEvent.mouseOver(screen.getByTestId('cell'))
    fireEvent.mouseEnter(screen.getByTestId('cell'))
    expect(await screen.findByRole('tooltip')).toHaveTextContent(name)
    expect(screen.getByTestId('cell')).toHaveAttribute('data-cut', 'true')
  })

  it('adds no tooltip to a text that fits', () => {
    measured(80, 120)
    render(<CellText text="curto.csv" lines={1} testId="cell" />)
    fireEvent.mouseEnter(screen.getByTestId('cell'))
    fireEvent.mouseOver(screen.getByTestId('cell'))
    expect(screen.queryByRole('tooltip')).toBeNull()
    expect(screen.getByTestId('cell')).not.toHaveAttribute('data-cut')
  })
})
