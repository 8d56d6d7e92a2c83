import { fireEvent, render, screen, waitFor } from '@testing-library/react'
import { Provider } from 'react-redux'
import { MemoryRouter } from 'react-router'
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import i18n from '../../i18n'
import { makeStore } from '../../store'
import type { BrandResponse } from '../../store/generated/bemteviApi'
import { user } from '../../test/fixtures'
import BrandEditor from './BrandEditor'

const GROUP = '0b6a3b52-8f0e-4c11-9d1e-2f6d3c1a7e10'
const served: BrandResponse = {
  groupId: GROUP,
  groupName: 'Passo a Passo',
  own: { appTitle: 'Título salvo', primaryColor: '#112233' },
  resolved: { appTitle: 'Título salvo', primaryColor: '#112233' },
  upToDate: true,
}

let release: () => void = () => undefined

beforeEach(async () => {
  await i18n.changeLanguage('pt-BR')
  localStorage.setItem('authToken', 'tok-1')
  localStorage.setItem('authUser', JSON.stringify({ ...user, role: 'super-admin' }))
  const answered = new Promise<void>((resolve) => (release = resolve))
  vi.stubGlobal(
    'fetch',
    vi.fn(async (input: Request) => {
      const url = new URL(input.url, 'http://localhost')
      if (url.pathname === `/api/group/${GROUP}/brand`) {
        await answered // a slow server: the person types first
        return new Response(JSON.stringify(served), { headers: { 'Content-Type': 'application/json' } })
      }
      return new Response(JSON.stringify({ statusCode: 404, message: 'Not found', code: 'not_found' }), { status: 404 })
    }),
  )
})

afterEach(() => {
  vi.unstubAllGlobals()
  localStorage.clear()
})

describe('the brand editor', () => {
  it('keeps what the person typed when the saved brand arrives after, and fills the fields they left', async () => {
    render(
      <Provider store={makeStore()}>
        <MemoryRouter>
          <BrandEditor groupId={GROUP} />
        </MemoryRouter>
      </Provider>,
    )
    fireEvent.change(screen.getByTestId('brand-title'), { target: { value: 'Título digitado' } })
    release()
    await waitFor(() => expect(screen.getByTestId('brand-primaryColor')).toHaveValue('#112233'))
    expect(screen.getByTestId('brand-title')).toHaveValue('Título digitado')
  })

  it('draws every field as the rest of the signed-in app does (MUI), a colour with its swatch, a refusal under its field', async () => {
    render(
      <Provider store={makeStore()}>
        <MemoryRouter>
          <BrandEditor groupId={GROUP} />
        </MemoryRouter>
      </Provider>,
    )
    release()
    await waitFor(() => expect(screen.getByTestId('brand-primaryColor')).toHaveValue('#112233'))
    const fields = ['title', 'primaryColor', 'secondaryColor', 'lighterColor', 'contactEmail', 'contactPhone', 'contactAddress', 'aboutText']
    for (const field of fields) {
      expect(screen.getByTestId(`brand-${field}`).closest('.MuiTextField-root'), field).not.toBeNull()
    }
    // The label names its field; the colour's swatch sits inside the same outlined field.
    const primary = screen.getByRole('textbox', { name: 'Cor primária' })
    expect(primary.closest('.MuiTextField-root')?.querySelector('input[type="color"]')).toHaveValue('#112233')
    fireEvent.change(primary, { target: { value: 'azul' } })
    fireEvent.click(screen.getByTestId('brand-save'))
    await waitFor(() => expect(primary).toHaveAttribute('aria-invalid', 'true'))
    expect(primary.closest('.MuiTextField-root')?.querySelector('.MuiFormHelperText-root')?.textContent).toBeTruthy()
  })
})
