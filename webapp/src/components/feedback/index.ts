/** Shared feedback: loading overlay, toasts, confirm dialogs and the error handler. */
export { useConfirm, useHandleError, useLoading, useNotify, usePrompt, NOTIFY_TIMEOUT_MS } from './hooks'
export type { ConfirmOptions, HandledError, NotifyOptions, PromptOptions } from './hooks'
export { default as LoadingOverlay } from './LoadingOverlay'
export { default as Notifications } from './Notifications'
export { default as ConfirmDialog } from './ConfirmDialog'
