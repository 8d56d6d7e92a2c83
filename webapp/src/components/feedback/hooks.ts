import { useCallback, useMemo } from 'react'
import { useTranslation } from 'react-i18next'
import { errorText } from '../errorText'
import { errorInfo, type AnyError } from '../../lib/errors'
import { useAppDispatch } from '../../store/hooks'
import {
  confirmAsked,
  loadingReset,
  loadingStarted,
  loadingStopped,
  notificationShown,
  type NotificationType,
} from '../../store/uiSlice'

export const NOTIFY_TIMEOUT_MS = 5000

let nextId = 1
/** Answers of the confirm dialogs still open, by dialog id (promises cannot live in the store). */
const pendingConfirms = new Map<number, (answer: boolean | string | null) => void>()
/** The prompts' checks, by dialog id (functions cannot live in the store either). */
const promptChecks = new Map<number, (value: string) => string | null>()

/** Settles an open dialog's promise (called by <ConfirmDialog/>): true/false, or a prompt's text (null: canceled). */
export function settleConfirm(id: number, answer: boolean | string | null): void {
  pendingConfirms.get(id)?.(answer)
  pendingConfirms.delete(id)
  promptChecks.delete(id)
}

/** What an open prompt's check says of `value`: null when OK may be pressed, else the reason (shown under the field). */
export function checkPrompt(id: number, value: string): string | null {
  return promptChecks.get(id)?.(value) ?? null
}

/** The loading overlay: `start(group)` holds it, `stop(group)` releases it; it hides when every group is released. */
export function useLoading(): { start: (group?: string) => void; stop: (group?: string) => void } {
  const dispatch = useAppDispatch()
  return useMemo(
    () => ({
      start: (group?: string) => void dispatch(loadingStarted(group)),
      stop: (group?: string) => void dispatch(loadingStopped(group)),
    }),
    [dispatch],
  )
}

export interface NotifyOptions {
  type: NotificationType
  message: string
}

/** Toasts: `notify({ type, message })`, shown for 5 s by <Notifications/>. */
export function useNotify(): (options: NotifyOptions) => void {
  const dispatch = useAppDispatch()
  return useCallback(
    ({ type, message }: NotifyOptions) => void dispatch(notificationShown({ id: nextId++, type, message })),
    [dispatch],
  )
}

export interface ConfirmOptions {
  title?: string
  message?: string
  variant?: 'ok' | 'yesNo'
}

export interface PromptOptions {
  title?: string
  message?: string
  label: string
  initial?: string
  /** null when the text may be sent; else what is wrong with it (OK stays disabled meanwhile). */
  check?: (value: string) => string | null
}

/** A prompt dialog: `await prompt({ label, check })` is the text on OK, null on Cancel. */
export function usePrompt(): (options: PromptOptions) => Promise<string | null> {
  const dispatch = useAppDispatch()
  return useCallback(
    (options: PromptOptions) =>
      new Promise<string | null>((resolve) => {
        const id = nextId++
        pendingConfirms.set(id, (answer) => resolve(typeof answer === 'string' ? answer : null))
        if (options.check) promptChecks.set(id, options.check)
        dispatch(
          confirmAsked({
            id,
            title: options.title ?? null,
            message: options.message ?? null,
            variant: 'prompt',
            label: options.label,
            initial: options.initial ?? '',
          }),
        )
      }),
    [dispatch],
  )
}

/** Confirm dialogs: `await confirm({ title?, message?, variant? })` is true for OK/Sim, false for Não. */
export function useConfirm(): (options?: ConfirmOptions) => Promise<boolean> {
  const dispatch = useAppDispatch()
  return useCallback(
    (options: ConfirmOptions = {}) =>
      new Promise<boolean>((resolve) => {
        const id = nextId++
        pendingConfirms.set(id, (answer) => resolve(answer === true))
        dispatch(
          confirmAsked({
            id,
            title: options.title ?? null,
            message: options.message ?? null,
            variant: options.variant ?? 'yesNo',
          }),
        )
      }),
    [dispatch],
  )
}

export interface HandledError {
  error: true
  message: string
  code: string | null
}

/**
 * The shared error handler (spec section 8) for a screen's failed call: hides the loading
 * indicator, shows the chosen message as an error toast and returns `{ error, message, code }`.
 * (A 401 opens the Warning dialog from the API layer itself, so it gets no toast here.)
 */
export function useHandleError(): (err: unknown) => HandledError {
  const dispatch = useAppDispatch()
  const { t, i18n } = useTranslation()
  return useCallback(
    (err: unknown) => {
      const e = err as AnyError
      dispatch(loadingReset())
      const info = errorInfo(e)
      const message = errorText(e, t, (k) => i18n.exists(k))
      if (info.status !== 401) dispatch(notificationShown({ id: nextId++, type: 'negative', message }))
      return { error: true, message, code: info.code }
    },
    [dispatch, t, i18n],
  )
}
