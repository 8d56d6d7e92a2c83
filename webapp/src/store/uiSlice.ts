import { createSlice, type PayloadAction } from '@reduxjs/toolkit'
import type { ShownError } from '../components/errorText'

export interface UiState {
  /** 401 received: the Warning dialog is open with this error (its code's text, else message, else the fallback). */
  warning: ShownError | null
  /** Set when the server answered access_denied: the app goes to /error-forbidden. */
  forbidden: boolean
  /** Loading groups still held (name -> how many starts not yet stopped); the overlay shows while any is held. */
  loading: Record<string, number>
  /** Toasts on screen, oldest first. */
  notifications: Notification[]
  /** Confirm dialogs asked for, the first one on screen (their answers are kept outside the store). */
  confirms: ConfirmRequest[]
}

export type NotificationType = 'positive' | 'negative' | 'info' | 'warning'

export interface Notification {
  id: number
  type: NotificationType
  message: string
}

export interface ConfirmRequest {
  id: number
  /** null: the translated default ('Confirmation' / 'You are sure?'). */
  title: string | null
  message: string | null
  /** 'prompt': a text field, OK (disabled while the asker's check refuses the text) and Cancel. */
  variant: 'ok' | 'yesNo' | 'prompt'
  /** The prompt's field label and first value. */
  label?: string
  initial?: string
}

export const DEFAULT_LOADING_GROUP = 'default'

const initialState: UiState = { warning: null, forbidden: false, loading: {}, notifications: [], confirms: [] }

const uiSlice = createSlice({
  name: 'ui',
  initialState,
  reducers: {
    showWarning(state, action: PayloadAction<ShownError>) {
      if (!state.warning) state.warning = action.payload
    },
    dismissWarning(state) {
      state.warning = null
    },
    setForbidden(state, action: PayloadAction<boolean>) {
      state.forbidden = action.payload
    },
    loadingStarted(state, action: PayloadAction<string | undefined>) {
      const group = action.payload ?? DEFAULT_LOADING_GROUP
      state.loading[group] = (state.loading[group] ?? 0) + 1
    },
    loadingStopped(state, action: PayloadAction<string | undefined>) {
      const group = action.payload ?? DEFAULT_LOADING_GROUP
      const left = (state.loading[group] ?? 0) - 1
      if (left > 0) state.loading[group] = left
      else delete state.loading[group]
    },
    /** The shared error handler always hides the loading indicator. */
    loadingReset(state) {
      state.loading = {}
    },
    notificationShown(state, action: PayloadAction<Notification>) {
      state.notifications.push(action.payload)
    },
    notificationDismissed(state, action: PayloadAction<number>) {
      state.notifications = state.notifications.filter((n) => n.id !== action.payload)
    },
    confirmAsked(state, action: PayloadAction<ConfirmRequest>) {
      state.confirms.push(action.payload)
    },
    confirmAnswered(state, action: PayloadAction<number>) {
      state.confirms = state.confirms.filter((c) => c.id !== action.payload)
    },
  },
})

export const {
  showWarning,
  dismissWarning,
  setForbidden,
  loadingStarted,
  loadingStopped,
  loadingReset,
  notificationShown,
  notificationDismissed,
  confirmAsked,
  confirmAnswered,
} = uiSlice.actions
export default uiSlice.reducer
