import { describe, expect, it } from 'vitest'
import { fileNameOf } from './download'

describe('fileNameOf', () => {
  it('reads the name the server chose', () => {
    expect(fileNameOf('attachment; filename="historico_saldos_22-11-2026_10-05-00.csv"')).toBe(
      'historico_saldos_22-11-2026_10-05-00.csv',
    )
    expect(fileNameOf('attachment; filename=export.xlsx')).toBe('export.xlsx')
    expect(fileNameOf(null)).toBeNull()
  })
})
