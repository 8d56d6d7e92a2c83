import '@testing-library/jest-dom/vitest'
import { afterEach, beforeEach, vi } from 'vitest'
import { cleanup, configure } from '@testing-library/react'
import i18n, { DEFAULT_LOCALE } from '../i18n'

// Screens load lazily (MUI's chunks): on a machine busy with other suites the first one can take many seconds
// to appear, so a waitFor/findBy waits up to 20 s; it ends as soon as the element comes, and still fails if
// it never does.
configure({ asyncUtilTimeout: 20_000 })

// The DOM files share one module registry and one jsdom per worker (vite.config.ts): each test starts from the
// state a fresh page has, whatever the test before it left: the default language, the root URL, real timers (the
// stubbed globals are put back by vitest itself: `unstubGlobals` in vite.config.ts).
beforeEach(async () => {
  if (i18n.language !== DEFAULT_LOCALE) await i18n.changeLanguage(DEFAULT_LOCALE)
  window.history.replaceState(null, '', '/')
})

afterEach(() => {
  cleanup()
  localStorage.clear()
  sessionStorage.clear()
  vi.useRealTimers()
})

// Node's Request rejects relative URLs; the app calls '/api/...' as a browser would.
const NodeRequest = globalThis.Request
class RelativeRequest extends NodeRequest {
  constructor(input: RequestInfo | URL, init?: RequestInit) {
    super(typeof input === 'string' ? new URL(input, window.location.origin).href : input, init)
  }
}
globalThis.Request = RelativeRequest as typeof Request

// jsdom has no scrolling.
window.scrollTo = (() => {}) as typeof window.scrollTo

// jsdom has no canvas (without the native `canvas` package it logs "not implemented" and answers
// nothing): answer null quietly, as a browser without 2D drawing would. Drawing code is tested
// with recording canvases of its own (lib/imageCrop.test.ts) and in the browser tests.
HTMLCanvasElement.prototype.getContext = (() => null) as typeof HTMLCanvasElement.prototype.getContext
