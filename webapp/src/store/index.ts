import { combineReducers, configureStore } from '@reduxjs/toolkit'
import { taggedApi as api } from './endpoints'
import authReducer, { persistAuthState, type AuthState } from './authSlice'
import sessionReducer, { persistLastPosition } from './sessionSlice'
import uiReducer from './uiSlice'

const rootReducer = combineReducers({
  auth: authReducer,
  session: sessionReducer,
  ui: uiReducer,
  [api.reducerPath]: api.reducer,
})

export type RootState = ReturnType<typeof rootReducer>

export function makeStore(preloadedState?: Partial<RootState>) {
  const store = configureStore({
    reducer: rootReducer,
    preloadedState,
    middleware: (getDefault) => getDefault().concat(api.middleware),
  })
  let last: AuthState = store.getState().auth
  let lastPosition = store.getState().session.lastPosition
  store.subscribe(() => {
    const current = store.getState().auth
    if (current !== last) {
      last = current
      persistAuthState(current)
    }
    const position = store.getState().session.lastPosition
    if (position !== lastPosition) {
      lastPosition = position
      persistLastPosition(position)
    }
  })
  return store
}

export type AppStore = ReturnType<typeof makeStore>
export type AppDispatch = AppStore['dispatch']
