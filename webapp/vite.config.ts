import { defineConfig } from 'vitest/config'
import react from '@vitejs/plugin-react'

// The API (FastAPI) serves the built files from dist/ and everything under /api.
// In development the Vite server forwards /api to the API process on loopback.
export default defineConfig({
  plugins: [react()],
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
    environment: 'jsdom',
    globals: true,
    setupFiles: ['./src/test/setup.ts'],
    include: ['src/**/*.test.{ts,tsx}'],
    css: false,
  },
})
