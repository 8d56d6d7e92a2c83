import { describe, expect, it } from 'vitest'
import { EMAIL_PATTERN } from './documents'

describe('login e-mail check', () => {
  it.each(['admin@bemtevi.local', 'ana.souza@empresa.com.br', 'joao_1@acme.io'])('accepts %s', (email) => {
    expect(EMAIL_PATTERN.test(email)).toBe(true)
  })
  it.each(['sem-arroba.com', 'a@b', 'a@b.c', 'espaço @x.com', '@acme.com'])('refuses %s', (email) => {
    expect(EMAIL_PATTERN.test(email)).toBe(false)
  })
})
