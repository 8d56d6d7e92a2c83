import '@testing-library/jest-dom/vitest'
import { afterEach } from 'vitest'
import { cleanup, configure } from '@testing-library/react'

// Screens load lazily (MUI's chunks): on a machine busy with other suites the first one can take many seconds
// to appear, so a waitFor/findBy waits up to 20 s; it ends as soon as the element comes, and still fails if
// it never does.
configure({ asyncUtilTimeout: 20_000 })

afterEach(() => {
  cleanup()
  localStorage.clear()
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
