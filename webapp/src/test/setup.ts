import '@testing-library/jest-dom/vitest'
import { afterEach } from 'vitest'
import { cleanup } from '@testing-library/react'
import '../i18n'

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
