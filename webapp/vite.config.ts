import { readFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { dirname, join } from 'node:path'
import type { Plugin } from 'vite'
import { defineConfig } from 'vitest/config'
import react from '@vitejs/plugin-react'

/** Where the build puts Swagger UI's files; the API's /api/docs page loads them from there. */
const API_DOCS_DIR = 'api-docs'
const SWAGGER_UI_FILES = ['swagger-ui-bundle.js', 'swagger-ui.css', 'swagger-ui-bundle.js.LICENSE.txt', 'LICENSE', 'NOTICE']

/**
 * Swagger UI (the swagger-ui-dist package, pinned in package.json) copied into the build, so the
 * API's documentation works without internet: FastAPI's default page loads it from a CDN.
 */
function swaggerUiAssets(): Plugin {
  return {
    name: 'bemtevi-swagger-ui-assets',
    apply: 'build',
    generateBundle() {
      const dir = dirname(createRequire(import.meta.url).resolve('swagger-ui-dist/package.json'))
      for (const file of SWAGGER_UI_FILES)
        this.emitFile({ type: 'asset', fileName: `${API_DOCS_DIR}/${file}`, source: readFileSync(join(dir, file)) })
    },
  }
}

// The API (FastAPI) serves the built files from dist/ and everything under /api.
// In development the Vite server forwards /api to the API process on loopback.
export default defineConfig({
  plugins: [react(), swaggerUiAssets()],
  base: '/',
  server: {
    proxy: {
      '/api': { target: 'http://127.0.0.1:8000', changeOrigin: false },
    },
  },
  build: {
    outDir: 'dist',
    emptyOutDir: true,
  },
  test: {
    globals: true,
    css: false,
    // Above testing-library's 20 s wait (src/test/setupDom.ts), so a slow screen fails on its own message.
    testTimeout: 60_000,
    // A global a test stubs (fetch, URL, ResizeObserver) is put back after it, in every project: files share workers.
    unstubGlobals: true,
    // Worker threads start faster and pass results more cheaply than the default child processes.
    pool: 'threads',
    // A jsdom costs each file most of a second to build, so only the files that need a DOM get one: component
    // tests (*.test.tsx) and the logic tests that touch the document, storage or a link (*.dom.test.ts). The
    // other *.test.ts files run in Node, which has no `document` or `window`: a logic test that needs them
    // fails on "... is not defined" until it is named *.dom.test.ts.
    projects: [
      {
        extends: true,
        test: {
          name: 'dom',
          environment: 'jsdom',
          include: ['src/**/*.test.tsx', 'src/**/*.dom.test.ts'],
          setupFiles: ['./src/test/setup.ts', './src/test/setupDom.ts'],
          // One jsdom and one module registry per worker, not per file (building them was most of the suite's CPU):
          // src/test/setupDom.ts puts back what a test may change (language, URL, timers, storage).
          isolate: false,
        },
      },
      {
        extends: true,
        test: {
          name: 'node',
          environment: 'node',
          include: ['src/**/*.test.ts'],
          exclude: ['src/**/*.dom.test.ts'],
          setupFiles: ['./src/test/setup.ts'],
          // The Node files share one module registry per worker instead of loading their modules afresh for each
          // file: a test that changes shared state (i18n's language, a stubbed global) puts it back afterwards.
          isolate: false,
        },
      },
    ],
  },
})
