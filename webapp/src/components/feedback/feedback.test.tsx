import { act, fireEvent, render, screen, waitFor } from '@testing-library/react'
import { Provider } from 'react-redux'
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import i18n from '../../i18n'
import { makeStore } from '../../store'
import { ConfirmDialog, LoadingOverlay, Notifications, useConfirm, useHandleError, useLoading, useNotify, usePrompt } from '.'

type Api = {
  confirm: ReturnType<typeof useConfirm>
  prompt: ReturnType<typeof usePrompt>
  notify: ReturnType<typeof useNotify>
  loading: ReturnType<typeof useLoading>
  handleError: ReturnType<typeof useHandleError>
}

function Probe({ expose }: { expose: (api: Api) => void }) {
  expose({ confirm: useConfirm(), prompt: usePrompt(), notify: useNotify(), loading: useLoading(), handleError: useHandleError() })
  return null
}

function setup(overlay: { delay?: number; image?: string } = {}) {
  const store = makeStore()
  let api!: Api
  render(
    <Provider store={store}>
      <Probe expose={(a) => (api = a)} />
      <ConfirmDialog />
      <Notifications />
      <LoadingOverlay {...overlay} />
    </Provider>,
  )
  return { store, api: () => api }
}

beforeEach(async () => {
  await i18n.changeLanguage('pt-BR')
})
afterEach(() => {
  vi.useRealTimers()
})

describe('useConfirm', () => {
  it.each([
    ['pt-BR', 'Confirmação', 'Você tem certeza?', 'Sim', 'Não'],
    ['en-US', 'Confirmation', 'You are sure?', 'Yes', 'No'],
  ])('defaults in %s: title, text and yes/no buttons', async (lng, title, text, yes, no) => {
    await i18n.changeLanguage(lng)
    const { api } = setup()
    let answer: Promise<boolean>
    act(() => {
      answer = api().confirm()
    })
    expect(await screen.findByText(title)).toBeInTheDocument()
    expect(screen.getByText(text)).toBeInTheDocument()
    expect(screen.getByTestId('confirm-yes')).toHaveTextContent(yes)
    expect(screen.getByTestId('confirm-no')).toHaveTextContent(no)
    fireEvent.click(screen.getByTestId('confirm-no'))
    await expect(answer!).resolves.toBe(false)
    await waitFor(() => expect(screen.queryByTestId('confirm-dialog')).not.toBeInTheDocument())
  })

  it('OK-only variant with its own title and message answers true', async () => {
    const { api } = setup()
    let answer: Promise<boolean>
    act(() => {
      answer = api().confirm({ title: 'Inativar', message: 'Inativar a empresa?', variant: 'ok' })
    })
    expect(await screen.findByText('Inativar')).toBeInTheDocument()
    expect(screen.getByText('Inativar a empresa?')).toBeInTheDocument()
    expect(screen.queryByTestId('confirm-no')).not.toBeInTheDocument()
    fireEvent.click(screen.getByTestId('confirm-ok'))
    await expect(answer!).resolves.toBe(true)
  })

  it('is persistent: backdrop click and Escape leave it open', async () => {
    const { api } = setup()
    act(() => {
      void api().confirm()
    })
    await screen.findByTestId('confirm-dialog')
    fireEvent.click(screen.getByTestId('confirm-backdrop'))
    fireEvent.keyDown(screen.getByTestId('confirm-dialog'), { key: 'Escape' })
    expect(screen.getByTestId('confirm-dialog')).toBeInTheDocument()
  })

  it('asks queued questions one after the other', async () => {
    const { api } = setup()
    let first: Promise<boolean>, second: Promise<boolean>
    act(() => {
      first = api().confirm({ message: 'um' })
      second = api().confirm({ message: 'dois' })
    })
    expect(await screen.findByText('um')).toBeInTheDocument()
    fireEvent.click(screen.getByTestId('confirm-yes'))
    expect(await screen.findByText('dois')).toBeInTheDocument()
    fireEvent.click(screen.getByTestId('confirm-no'))
    await expect(first!).resolves.toBe(true)
    await expect(second!).resolves.toBe(false)
  })
})

describe('usePrompt', () => {
  const sixDigits = (value: string) => (/^\d{6}$/.test(value) ? null : 'Seis dígitos')

  it('keeps OK disabled while its check fails, then answers the text', async () => {
    const { api } = setup()
    let answer: Promise<string | null>
    act(() => {
      answer = api().prompt({ title: 'Código', label: 'Código recebido', check: sixDigits })
    })
    const input = await screen.findByTestId('prompt-input')
    expect(screen.getByTestId('prompt-ok')).toBeDisabled()
    fireEvent.change(input, { target: { value: '12a' } })
    expect(screen.getByTestId('prompt-ok')).toBeDisabled()
    expect(screen.getByTestId('prompt-error')).toHaveTextContent('Seis dígitos')
    fireEvent.change(input, { target: { value: '123456' } })
    expect(screen.getByTestId('prompt-ok')).toBeEnabled()
    fireEvent.click(screen.getByTestId('prompt-ok'))
    await expect(answer!).resolves.toBe('123456')
  })

  it('answers null on Cancel', async () => {
    await i18n.changeLanguage('en-US')
    const { api } = setup()
    let answer: Promise<string | null>
    act(() => {
      answer = api().prompt({ label: 'Name', initial: 'x', check: sixDigits })
    })
    expect(await screen.findByTestId('prompt-cancel')).toHaveTextContent('Cancel')
    fireEvent.click(screen.getByTestId('prompt-cancel'))
    await expect(answer!).resolves.toBeNull()
  })
})

describe('useNotify', () => {
  it.each(['positive', 'negative', 'info', 'warning'] as const)('shows a %s toast for 5,000 ms', (type) => {
    vi.useFakeTimers()
    const { api } = setup()
    act(() => api().notify({ type, message: `msg ${type}` }))
    expect(screen.getByTestId(`notification-${type}`)).toHaveTextContent(`msg ${type}`)
    act(() => vi.advanceTimersByTime(4999))
    expect(screen.getByText(`msg ${type}`)).toBeInTheDocument()
    act(() => vi.advanceTimersByTime(1))
    expect(screen.queryByText(`msg ${type}`)).not.toBeInTheDocument()
  })

  it('can be closed by hand', () => {
    const { api } = setup()
    act(() => api().notify({ type: 'info', message: 'olá' }))
    fireEvent.click(screen.getByRole('button', { name: 'Fechar' }))
    expect(screen.queryByText('olá')).not.toBeInTheDocument()
  })
})

describe('useLoading', () => {
  it('stays on until every group is released', () => {
    const { api } = setup()
    expect(screen.queryByTestId('loading-overlay')).not.toBeInTheDocument()
    act(() => {
      api().loading.start()
      api().loading.start('table')
    })
    expect(screen.getByTestId('loading-overlay')).toBeInTheDocument()
    act(() => api().loading.stop())
    expect(screen.getByTestId('loading-overlay')).toBeInTheDocument()
    act(() => api().loading.stop('table'))
    expect(screen.queryByTestId('loading-overlay')).not.toBeInTheDocument()
  })

  it('shows after the configured delay, with a custom image', () => {
    vi.useFakeTimers()
    const { api } = setup({ delay: 300, image: '/loading.gif' })
    act(() => api().loading.start())
    expect(screen.queryByTestId('loading-overlay')).not.toBeInTheDocument()
    act(() => vi.advanceTimersByTime(300))
    expect(screen.getByTestId('loading-overlay').querySelector('img')).toHaveAttribute('src', '/loading.gif')
  })

  it('draws an 80 px spinner and no message by default', () => {
    const { api } = setup()
    act(() => api().loading.start())
    const spinner = screen.getByTestId('loading-overlay').querySelector('.fb-spinner') as HTMLElement
    expect(spinner.style.width).toBe('80px')
    expect(screen.getByTestId('loading-overlay').querySelector('.fb-overlay-message')).toBeNull()
  })
})

describe('useHandleError', () => {
  it('hides the loading overlay, toasts the chosen message and returns it', () => {
    const { api, store } = setup()
    act(() => api().loading.start('x'))
    let result!: ReturnType<Api['handleError']>
    act(() => {
      result = api().handleError({ status: 400, data: { message: 'Batch query is disabled', code: 'x_unknown' } })
    })
    expect(result).toEqual({ error: true, message: 'Batch query is disabled', code: 'x_unknown' })
    expect(store.getState().ui.loading).toEqual({})
    expect(screen.getByTestId('notification-negative')).toHaveTextContent('Batch query is disabled')
  })

  it('gives no toast for a 401 (the Warning dialog handles it)', () => {
    const { api } = setup()
    act(() => {
      api().handleError({ status: 401, data: { message: 'Expired token' } })
    })
    expect(screen.queryByTestId('notification-negative')).not.toBeInTheDocument()
  })
})
