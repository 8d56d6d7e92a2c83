import { ESLint } from 'eslint'
import { describe, expect, it } from 'vitest'

// The project's own lint configuration, run on a snippet as if it lived at `filePath`.
async function refusals(code: string, filePath: string): Promise<string[]> {
  const eslint = new ESLint({ cwd: process.cwd() })
  const [result] = await eslint.lintText(code, { filePath })
  return result.messages.filter((m) => m.ruleId === 'no-restricted-imports').map((m) => m.message)
}

describe('feature zones', () => {
  it('refuses a feature importing another feature', async () => {
    const found = await refusals("import { x } from '../users/details'\nexport const y = x\n", 'src/features/account/X.ts')
    expect(found).toHaveLength(1)
    expect(found[0]).toMatch(/another feature/)
  })

  it('lets a feature import its own files and the shared layers', async () => {
    const code = [
      "import { a } from './own'",
      "import { b } from '../../components/errorText'",
      "import { c } from '../../lib/documents'",
      "import { d } from '../../store/hooks'",
      'export const all = [a, b, c, d]',
      '',
    ].join('\n')
    expect(await refusals(code, 'src/features/account/X.ts')).toEqual([])
  })

  it('refuses a shared layer importing a feature', async () => {
    const found = await refusals("import { x } from '../features/users/i18n'\nexport const y = x\n", 'src/components/X.ts')
    expect(found).toHaveLength(1)
  })
}, 60_000)
