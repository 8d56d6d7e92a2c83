import { describe, expect, it } from 'vitest'
import { EMPTY_DETAILS } from './details'
import type { UserForm } from './details'
import { detailsErrors, isStrongPassword, passwordErrors, photoError, userErrors, PHOTO_MAX_BYTES } from './validation'

const VALID: UserForm = {
  ...EMPTY_DETAILS,
  name: 'Maria da Silva',
  cpf: '529.982.247-25',
  functions: 'Analista',
  email: 'maria@empresa.com.br',
  role: 'user',
}

describe('user form rules', () => {
  it('accepts a complete form', () => {
    expect(userErrors(VALID, true)).toEqual({})
  })

  it('requires full name, CPF and functions (profile rules of section 5)', () => {
    expect(detailsErrors(EMPTY_DETAILS)).toEqual({
      name: 'users.errors.required',
      cpf: 'users.errors.required',
      functions: 'users.errors.required',
    })
    expect(detailsErrors({ ...VALID, name: 'Al', functions: '   ' })).toEqual({
      name: 'users.errors.nameShort',
      functions: 'users.errors.required',
    })
  })

  it('checks the CPF digits and the phone length', () => {
    expect(detailsErrors({ ...VALID, cpf: '111.111.111-11' }).cpf).toBe('users.errors.cpf')
    expect(detailsErrors({ ...VALID, cpf: '529.982.247-24' }).cpf).toBe('users.errors.cpf')
    expect(detailsErrors({ ...VALID, phone: '(11) 9876-543' }).phone).toBe('users.errors.phone')
    expect(detailsErrors({ ...VALID, phone: '(11) 98765-4321' }).phone).toBeUndefined()
    expect(detailsErrors({ ...VALID, phone: '' }).phone).toBeUndefined()
  })

  it('checks the e-mail only when adding (it does not change afterwards)', () => {
    expect(userErrors({ ...VALID, email: 'maria@empresa' }, true).email).toBe('users.errors.email')
    expect(userErrors({ ...VALID, email: '' }, true).email).toBe('users.errors.required')
    expect(userErrors({ ...VALID, email: 'whatever' }, false).email).toBeUndefined()
  })
})

describe('change password rules', () => {
  it('applies the password policy', () => {
    expect(isStrongPassword('Nov@Senha1')).toBe(true)
    for (const weak of ['Nov@Se1', 'nov@senha1', 'NOV@SENHA1', 'NovaSenha1', 'Nov@Senha']) {
      expect(isStrongPassword(weak)).toBe(false)
    }
  })

  it('requires all three fields, a strong new password and a matching confirmation', () => {
    expect(passwordErrors({ currentPassword: '', newPassword: '', confirmation: '' })).toEqual({
      currentPassword: 'users.errors.required',
      newPassword: 'users.errors.required',
      confirmation: 'users.errors.required',
    })
    expect(passwordErrors({ currentPassword: 'x', newPassword: 'fraca', confirmation: 'fraca' })).toEqual({
      newPassword: 'users.errors.weakPassword',
    })
    expect(passwordErrors({ currentPassword: 'x', newPassword: 'Nov@Senha1', confirmation: 'Nov@Senha2' })).toEqual({
      confirmation: 'users.errors.mismatch',
    })
    expect(passwordErrors({ currentPassword: 'x', newPassword: 'Nov@Senha1', confirmation: 'Nov@Senha1' })).toEqual({})
  })
})

describe('photo rules', () => {
  it('refuses 1 MB or more and what is not PNG, JPEG or WebP', () => {
    expect(photoError({ size: PHOTO_MAX_BYTES - 1, type: 'image/png' })).toBeNull()
    expect(photoError({ size: 1000, type: 'image/webp' })).toBeNull()
    expect(photoError({ size: PHOTO_MAX_BYTES, type: 'image/jpeg' })).toBe('users.errors.photoSize')
    expect(photoError({ size: 1000, type: 'image/gif' })).toBe('users.errors.photoType')
    expect(photoError({ size: 1000, type: 'application/pdf' })).toBe('users.errors.photoType')
  })
})
