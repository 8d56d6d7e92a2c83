// Prints the gzipped JavaScript of the first load of "/" (the public home) from dist/:
// the entry chunk of index.html with every chunk it imports statically, then the same plus
// the lazy chunks the home route loads (its layout and page, with their static imports).
// Usage: node scripts/bundle-size.mjs [ChunkName ...]   (default: PublicLayout HomePage)
// Exits with 1 when the home's first load is over the budget (250 KB gzipped) or holds a chunk of
// the signed-in area or of the component library. Without arguments it also prints each signed-in
// and auth screen's chunk and first load, and the shared chunks they load.
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
// Neither the signed-in area nor the component library (MUI, loaded by the auth and signed-in
// layouts through MuiProvider, the Data Grid through ListPage, the Charts — rolldown names their chunk
// after ChartsLanguage, their first importer) may join the home's first load.
const signedIn = all.filter((f) =>
  /^(SignedInLayout|DashboardPage|DashboardCharts|AuthLayout|MuiProvider|ListPage|DateFilter|ChartsLanguage)-/.test(f),
)
const leaked = signedIn.filter((f) => home.has(f))
if (leaked.length) console.log(`signed-in or MUI chunks in the home's first load: ${leaked.join(', ')}`)

// Each signed-in and auth screen: its own chunk, and what its first load (entry, layout, screen and
// every chunk they import) weighs; the chunks over 10 KB they share are listed once, below.
const SCREENS = {
  AuthLayout: ['LoginPage', 'CreateAccountPage', 'RecoveryPage', 'FirstAccessPage'],
  SignedInLayout: [
    'DashboardPage',
    'UsersPage',
    'CustomersPage',
    'CustomerFormPage',
    'BalancesPage',
    'BalanceHistoryPage',
    'AuditLogPage',
    'MailOutboxPage',
    'MyAccountPage',
    'BrandSettingsPage',
    'QueryResultPage',
  ],
}
// Parts a screen loads lazily once it is drawn (the dashboard's charts come after its figures).
const LATER = { DashboardPage: ['DashboardCharts'] }
if (!process.argv.slice(2).length) {
  const chunkOf = (name) => all.find((f) => f.startsWith(`${name}-`))
  const shared = new Map()
  console.log('\nscreen                 own chunk   first load (gzipped)')
  for (const [layout, screens] of Object.entries(SCREENS)) {
    for (const screen of screens) {
      const own = chunkOf(screen)
      if (!own) continue
      const load = closure([...eager, chunkOf(layout), own].filter(Boolean))
      for (const f of load) if (!eager.has(f) && f !== own && gz(f) > 10 * 1024) shared.set(f, gz(f))
      console.log(`${screen.padEnd(22)} ${kb(gz(own)).padStart(6)} KB   ${kb(total(load)).padStart(6)} KB`)
      for (const part of LATER[screen] ?? []) {
        const later = closure([...load, chunkOf(part)].filter(Boolean))
        for (const f of later) if (!load.has(f) && f !== chunkOf(part) && gz(f) > 10 * 1024) shared.set(f, gz(f))
        const name = `  then ${part}`
        console.log(`${name.padEnd(22)} ${kb(gz(chunkOf(part))).padStart(6)} KB   ${kb(total(later)).padStart(6)} KB`)
      }
    }
  }
  console.log('shared chunks over 10 KB that these screens load (not in the home):')
  for (const [f, size] of [...shared].sort((a, b) => b[1] - a[1])) console.log(`  ${f}  ${kb(size)} KB`)
}
process.exit(homeKb > BUDGET_KB || leaked.length ? 1 : 0)
