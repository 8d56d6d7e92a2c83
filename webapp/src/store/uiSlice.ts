import { createSlice, type PayloadAction } from '@reduxjs/toolkit'

export interface UiState {
  /** 401 received: the Warning dialog is open. `message` null means the fallback text. */
  warning: { message: string | null } | null
  /** Set when the server answered access_denied: the app goes to /error-forbidden. */
  forbidden: boolean
}

const initialState: UiState = { warning: null, forbidden: false }

const uiSlice = createSlice({
  name: 'ui',
  initialState,
  reducers: {
    showWarning(state, action: PayloadAction<string | null>) {
      if (!state.warning) state.warning = { message: action.payload }
    },
    dismissWarning(state) {
      state.warning = null
    },
    setForbidden(state, action: PayloadAction<boolean>) {
      state.forbidden = action.payload
    },
  },
})

export const { showWarning, dismissWarning, setForbidden } = uiSlice.actions
export default uiSlice.reducer
