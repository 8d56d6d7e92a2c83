import { afterEach, describe, expect, it, vi } from 'vitest'
import { csvCell, csvFileName, csvText, exportCsv } from './csv'

interface Row {
  name: string | null
  doc: string
  credits: number
}

const columns = [
  { field: 'name' as const, label: 'Nome' },
  { field: 'doc' as const, label: 'Documento' },
  { field: 'credits' as const, label: 'Créditos', format: (v: unknown) => `${v} un.` },
]

afterEach(() => vi.restoreAllMocks())

describe('csv', () => {
  it('names the file base_dd-mm-yyyy_hh-mm-ss.csv, base export by default', () => {
    const at = new Date(2024, 0, 5, 9, 7, 3)
    expect(csvFileName(undefined, at)).toBe('export_05-01-2024_09-07-03.csv')
    expect(csvFileName('clientes', at)).toBe('clientes_05-01-2024_09-07-03.csv')
  })

  it.each<[string, string]>([
    ['plain', 'plain'],
    ['a;b', '"a;b"'],
    ['diz "oi"', '"diz ""oi"""'],
    ['linha\nnova', '"linha\nnova"'],
    [' espaço', '" espaço"'],
    ['vírgula, ok', 'vírgula, ok'],
  ])('quotes %j as %j', (value, cell) => expect(csvCell(value)).toBe(cell))

  it.each<[string, string]>([
    ['=HYPERLINK("http://evil.example","x")', '"\'=HYPERLINK(""http://evil.example"",""x"")"'],
    ['+1+1', "'+1+1"],
    ['-2+3', "'-2+3"],
    ['@SUM(A1)', "'@SUM(A1)"],
    ['\t=1', "'\t=1"],
    ['\r=1', '"\'\r=1"'],
    ['-', '-'],
    ['-12', '-12'],
    ['+3,5', '+3,5'],
    ['a=b', 'a=b'],
  ])('writes %j, which a spreadsheet would run, as text: %j', (value, cell) => expect(csvCell(value)).toBe(cell))

  it('writes a header and one line per row with ; and formats', () => {
    const rows: Row[] = [
      { name: 'Ação; Ltda', doc: '0', credits: 3 },
      { name: null, doc: 'NULL', credits: 0 },
    ]
    expect(csvText(rows, columns)).toBe('Nome;Documento;Créditos\r\n"Ação; Ltda";0;3 un.\r\n;;0 un.\r\n')
  })

  it('saves a UTF-8 file with a BOM under the dated name', async () => {
    let saved: Blob | null = null
    vi.spyOn(URL, 'createObjectURL').mockImplementation((b) => {
      saved = b as Blob
      return 'blob:x'
    })
    vi.spyOn(URL, 'revokeObjectURL').mockImplementation(() => {})
    const click = vi.spyOn(HTMLAnchorElement.prototype, 'click').mockImplementation(() => {})
    const name = exportCsv([{ name: 'Zé', doc: '1', credits: 1 }], columns, 'saldos')
    expect(name).toMatch(/^saldos_\d{2}-\d{2}-\d{4}_\d{2}-\d{2}-\d{2}\.csv$/)
    expect(click).toHaveBeenCalled()
    const bytes = new Uint8Array(await saved!.arrayBuffer())
    expect(Array.from(bytes.slice(0, 3))).toEqual([0xef, 0xbb, 0xbf])
    expect(new TextDecoder().decode(bytes.slice(3))).toBe('Nome;Documento;Créditos\r\nZé;1;1 un.\r\n')
    expect(saved!.type).toBe('text/csv;charset=utf-8')
  })
})
