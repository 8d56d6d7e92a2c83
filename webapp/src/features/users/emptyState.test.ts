import { describe, expect, it } from 'vitest'
import i18n from '../../i18n'

// The users list's empty texts: a search that found nobody is not a group without users.
describe('users list empty state texts', () => {
  it.each([
    ['pt-BR', 'users.none', /Cadastre o primeiro/],
    ['pt-BR', 'users.empty', /para esta busca/],
    ['en-US', 'users.none', /Add the first one/],
    ['en-US', 'users.empty', /matches this search/],
  ])('%s %s', (lng, key, text) => {
    expect(i18n.getFixedT(lng)(key)).toMatch(text)
  })
})
