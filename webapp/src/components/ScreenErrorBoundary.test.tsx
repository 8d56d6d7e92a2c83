import { fireEvent, render, screen } from '@testing-library/react'
import { Link, MemoryRouter, Route, Routes } from 'react-router'
import { beforeEach, describe, expect, it, vi } from 'vitest'
import i18n from '../i18n'
import { SafeOutlet } from './ScreenErrorBoundary'

function Broken(): never {
  // What reading a field of an API answer's null did to the unit-query screen.
  throw new TypeError("Cannot read properties of null (reading 'kind')")
}

function Frame() {
  return (
    <div>
      <nav>
        <Link to="/fine">fine</Link>
      </nav>
      <SafeOutlet />
    </div>
  )
}

function renderAt(path: string) {
  render(
    <MemoryRouter initialEntries={[path]}>
      <Routes>
        <Route element={<Frame />}>
          <Route path="broken" element={<Broken />} />
          <Route path="fine" element={<p>all good</p>} />
        </Route>
      </Routes>
    </MemoryRouter>,
  )
}

describe('a screen that fails to draw', () => {
  beforeEach(async () => {
    await i18n.changeLanguage('pt-BR')
    vi.spyOn(console, 'error').mockImplementation(() => {})
  })

  it('shows a translated message inside the frame instead of blanking the app', () => {
    renderAt('/broken')
    expect(screen.getByTestId('screen-error')).toHaveTextContent('Não foi possível exibir esta tela')
    expect(screen.getByText('fine')).toBeInTheDocument()
    expect(screen.queryByText(/reading 'kind'/)).toBeNull()
  })

  it('draws the next screen once the user goes elsewhere', () => {
    renderAt('/broken')
    fireEvent.click(screen.getByText('fine'))
    expect(screen.getByText('all good')).toBeInTheDocument()
    expect(screen.queryByTestId('screen-error')).toBeNull()
  })

  it('speaks the reader’s language', async () => {
    await i18n.changeLanguage('en-US')
    renderAt('/broken')
    expect(screen.getByTestId('screen-error')).toHaveTextContent('This screen could not be shown')
  })
})
