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

const initialState: SessionState = { lastPosition: null, lastConsultation: null }

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
      .addCase(clearSession, () => initialState)
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
