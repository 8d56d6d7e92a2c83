import { act, fireEvent, render, screen, within } from '@testing-library/react'
import { afterEach, describe, expect, it } from 'vitest'
import i18n from '../i18n'
import HeaderLanguageSelect from './HeaderLanguageSelect'

afterEach(async () => {
  await act(async () => {
    await i18n.changeLanguage('pt-BR')
  })
})

describe("the signed-in header's language switch", () => {
  it('is an MUI select named "Idioma" that switches to English, keeps it and is then named "Language"', async () => {
    await i18n.changeLanguage('pt-BR')
    render(<HeaderLanguageSelect />)
    const switcher = screen.getByRole('combobox', { name: 'Idioma' })
    expect(switcher).toHaveAttribute('data-testid', 'language-switch')
    expect(switcher).toHaveTextContent('Português (Brasil)')
    fireEvent.mouseDown(switcher)
    const options = within(await screen.findByRole('listbox')).getAllByRole('option')
    expect(options.map((o) => o.textContent)).toEqual(['Português (Brasil)', 'English (US)'])
    await act(async () => {
      fireEvent.click(options[1])
    })
    expect(localStorage.getItem('locale')).toBe('en-US')
    expect(await screen.findByRole('combobox', { name: 'Language' })).toHaveTextContent('English (US)')
  })
})
