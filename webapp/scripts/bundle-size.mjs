// Prints the gzipped JavaScript of the first load of "/" (the public home) from dist/:
// the entry chunk of index.html with every chunk it imports statically, then the same plus
// the lazy chunks the home route loads (its layout and page, with their static imports).
// Usage: node scripts/bundle-size.mjs [ChunkName ...]   (default: PublicLayout HomePage)
// Exits with 1 when the home's first load is over the budget (250 KB gzipped).
import { readdirSync, readFileSync } from 'node:fs'
import { dirname, join, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'
import { gzipSync } from 'node:zlib'

const BUDGET_KB = 250
const dist = resolve(dirname(fileURLToPath(import.meta.url)), '..', 'dist')
const assets = join(dist, 'assets')
const html = readFileSync(join(dist, 'index.html'), 'utf8')

const fromHtml = [...html.matchAll(/<script[^>]+type="module"[^>]+src="\/assets\/([^"]+\.js)"/g)].map((m) => m[1])
const preloaded = [...html.matchAll(/<link[^>]+rel="modulepreload"[^>]+href="\/assets\/([^"]+\.js)"/g)].map((m) => m[1])

/** Static imports of a chunk ("import ... from './x.js'" and bare "import './x.js'"), not import(). */
function staticImports(file) {
  const code = readFileSync(join(assets, file), 'utf8')
  const found = new Set()
  for (const m of code.matchAll(/(?:^|[;\s}])import\s*(?:[\w$*{}\s,]+from\s*)?["']\.\/([^"']+\.js)["']/g)) found.add(m[1])
  return [...found]
}

function closure(roots) {
  const seen = new Set()
  const queue = [...roots]
  while (queue.length) {
    const file = queue.pop()
    if (seen.has(file)) continue
    seen.add(file)
    queue.push(...staticImports(file))
  }
  return seen
}

const gz = (file) => gzipSync(readFileSync(join(assets, file)), { level: 9 }).length
const kb = (bytes) => (bytes / 1024).toFixed(1)
const total = (files) => [...files].reduce((sum, f) => sum + gz(f), 0)

const eager = closure([...fromHtml, ...preloaded])
const names = process.argv.slice(2).length ? process.argv.slice(2) : ['PublicLayout', 'HomePage']
const all = readdirSync(assets).filter((f) => f.endsWith('.js'))
const routeChunks = names.flatMap((n) => all.filter((f) => f.startsWith(`${n}-`)))
const home = closure([...eager, ...routeChunks])

console.log(`entry and its static imports: ${eager.size} files, ${kb(total(eager))} KB gzipped`)
for (const f of [...eager].sort()) console.log(`  ${f}  ${kb(gz(f))} KB`)
const missing = names.filter((n) => !routeChunks.some((f) => f.startsWith(`${n}-`)))
if (missing.length) console.log(`(no chunk found for: ${missing.join(', ')})`)
const homeKb = total(home) / 1024
console.log(`first load of / (with ${names.join(', ')}): ${home.size} files, ${homeKb.toFixed(1)} KB gzipped (budget ${BUDGET_KB} KB)`)
const signedIn = all.filter((f) => /^(SignedInLayout|DashboardPage)-/.test(f))
const leaked = signedIn.filter((f) => home.has(f))
if (leaked.length) console.log(`signed-in chunks in the home's first load: ${leaked.join(', ')}`)
process.exit(homeKb > BUDGET_KB || leaked.length ? 1 : 0)
