import { skipToken } from '@reduxjs/toolkit/query'
import { describe, expect, it } from 'vitest'
import type { AuthUser } from '../store/generated/bemteviApi'
import { brandRequest } from './useBrand'

const user: AuthUser = {
  email: 'helena@vitrineazul.com.br',
  groupId: 'g1',
  groupUniqueKey: 'k1',
  id: 'u1',
  name: 'Helena',
  role: 'owner',
  status: 'active',
  uniqueKey: 'uk1',
}
const HOST = 'entrar.vitrine-azul.test'

describe('brandRequest: where the brand comes from', () => {
  it("a visitor sees the host's brand", () => {
    expect(brandRequest(null, null, HOST)).toEqual({ publicDataRequest: { domain_url: HOST } })
  })

  it("a signed-in user sees their group's brand", () => {
    expect(brandRequest('t', user, HOST)).toEqual({ publicDataRequest: { group_id: 'g1', group_unique_key: 'k1' } })
  })

  it("a user at first access keeps the host's brand (the API answers nothing else yet)", () => {
    expect(brandRequest('t', { ...user, status: 'first-access' }, HOST)).toEqual({ publicDataRequest: { domain_url: HOST } })
  })

  it('a signed-in user without a group has no group call (the default brand)', () => {
    expect(brandRequest('t', { ...user, groupId: '' }, HOST)).toBe(skipToken)
  })
})
