import { createSlice, type PayloadAction } from '@reduxjs/toolkit'
import type { AuthUser } from './generated/bemteviApi'

export const AUTH_TOKEN_KEY = 'authToken'
export const AUTH_USER_KEY = 'authUser'

export interface AuthState {
  authToken: string | null
  authUser: AuthUser | null
  /** Why the last session ended: 'logout' goes to a plain /login, 'expired' remembers the path. */
  signOutReason?: 'logout' | 'expired' | null
}

export function loadAuthState(): AuthState {
  try {
    const authToken = localStorage.getItem(AUTH_TOKEN_KEY)
    const rawUser = localStorage.getItem(AUTH_USER_KEY)
    const authUser = rawUser ? (JSON.parse(rawUser) as AuthUser) : null
    if (!authToken || !authUser) return { authToken: null, authUser: null }
    return { authToken, authUser }
  } catch {
    return { authToken: null, authUser: null }
  }
}

/** Writes the session to localStorage (or removes its keys when signed out). */
export function persistAuthState(state: AuthState): void {
  try {
    if (state.authToken && state.authUser) {
      localStorage.setItem(AUTH_TOKEN_KEY, state.authToken)
      localStorage.setItem(AUTH_USER_KEY, JSON.stringify(state.authUser))
    } else {
      localStorage.removeItem(AUTH_TOKEN_KEY)
      localStorage.removeItem(AUTH_USER_KEY)
    }
  } catch {
    // storage unavailable: the session lasts for this page only
  }
}

const authSlice = createSlice({
  name: 'auth',
  initialState: loadAuthState,
  reducers: {
    setCredentials(state, action: PayloadAction<{ token: string; user: AuthUser }>) {
      state.authToken = action.payload.token
      state.authUser = action.payload.user
      state.signOutReason = null
    },
    clearSession(state, action: PayloadAction<'logout' | 'expired' | undefined>) {
      state.authToken = null
      state.authUser = null
      state.signOutReason = action.payload ?? 'logout'
    },
  },
})

export const { setCredentials, clearSession } = authSlice.actions
export default authSlice.reducer
