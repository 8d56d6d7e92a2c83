import { createSlice, isFulfilled } from '@reduxjs/toolkit'
import { typedConsultation, type Consultation } from '../types/api'
import { bemteviApi } from './generated/bemteviApi'
import { clearSession } from './authSlice'

export interface SessionState {
  /** Event-store position of the last command answer: queries send it to read their writes. */
  lastPosition: number | null
  /** The last unit-query (or opened advanced-query) result, shown again by its result screen. */
  lastConsultation: Consultation | null
}

const POSITION_KEY = 'bemtevi.lastPosition'

/** The tab's last command position, kept across a reload: a page reloaded after a save still reads that save
 * (per tab, as the browser keeps sessionStorage; gone when the tab closes or the person signs out). */
export function loadLastPosition(): number | null {
  try {
    const stored = Number(sessionStorage.getItem(POSITION_KEY) ?? Number.NaN)
    return Number.isSafeInteger(stored) && stored >= 0 ? stored : null
  } catch {
    return null
  }
}

export function persistLastPosition(position: number | null): void {
  try {
    if (position === null) sessionStorage.removeItem(POSITION_KEY)
    else sessionStorage.setItem(POSITION_KEY, String(position))
  } catch {
    // Storage refused (private mode, quota): the position lives in memory only, as before.
  }
}

const signedOut: SessionState = { lastPosition: null, lastConsultation: null }
const initialState = (): SessionState => ({ ...signedOut, lastPosition: loadLastPosition() })

function positionOf(action: unknown): number | null {
  const payload = (action as { payload?: unknown }).payload
  if (payload && typeof payload === 'object' && 'position' in payload) {
    const position = (payload as { position: unknown }).position
    return typeof position === 'number' ? position : null
  }
  return null
}

const sessionSlice = createSlice({
  name: 'session',
  initialState,
  reducers: {},
  extraReducers: (builder) => {
    builder
      .addCase(clearSession, () => signedOut)
      .addMatcher(bemteviApi.endpoints.runConsultation.matchFulfilled, (state, action) => {
        state.lastConsultation = typedConsultation(action.payload.data)
      })
      // A result opened from an advanced search: the same result screen shows it.
      .addMatcher(bemteviApi.endpoints.openAdvancedResult.matchFulfilled, (state, action) => {
        state.lastConsultation = typedConsultation(action.payload.data)
      })
      .addMatcher(
        (action) => isFulfilled(action) && positionOf(action) !== null,
        (state, action) => {
          const position = positionOf(action) as number
          state.lastPosition = state.lastPosition === null ? position : Math.max(state.lastPosition, position)
        },
      )
  },
})

export default sessionSlice.reducer
