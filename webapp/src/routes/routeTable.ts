import { lazy, type ComponentType, type LazyExoticComponent } from 'react'

/** Which layout a route is drawn in. */
export type RouteLayout = 'public' | 'auth' | 'signed-in'

/**
 * One line of the route table (spec section 2). Every parameter of `path` is optional.
 * - `public` routes are open to everyone (`guard: 'main-domain'` sends other hosts to /login);
 * - `auth` routes with `guard: 'guest'` send a signed-in user on to the dashboard;
 * - `signed-in` routes need a session and (unless always allowed) the route name in a role menu.
 */
export interface RouteEntry {
  /** Route name, as in the role menu's `active_routes`. */
  name: string
  /** Path pattern relative to '/', '' for the index route. */
  path: string
  layout: RouteLayout
  /** i18n keys of the breadcrumb trail (the pages that draw their own trail ignore it). */
  breadcrumb?: string[]
  guard?: 'guest' | 'main-domain'
  component: LazyExoticComponent<ComponentType>
}

// Every screen is its own chunk; the signed-in area is never loaded on the public pages or /login.
const LoginPage = lazy(() => import('../pages/LoginPage'))
const CreateAccountPage = lazy(() => import('../features/accounts/CreateAccountPage'))
const RecoveryPage = lazy(() => import('../features/accounts/RecoveryPage'))
const VerifyCodePage = lazy(() => import('../features/accounts/VerifyCodePage'))
const FirstAccessPage = lazy(() => import('../features/accounts/FirstAccessPage'))
const MailOutboxPage = lazy(() => import('../features/accounts/MailOutboxPage'))
const SuppliersPage = lazy(() => import('../features/suppliers/SuppliersPage'))
const SupplierFormPage = lazy(() => import('../features/suppliers/SupplierFormPage'))
// The public site: its own chunks, nothing of the signed-in area.
const HomePage = lazy(() => import('../features/public/HomePage'))
const AboutPage = lazy(() => import('../features/public/AboutPage'))
const ServicesPage = lazy(() => import('../features/public/ServicesPage'))
const ContactPage = lazy(() => import('../features/public/ContactPage'))
const TermsPage = lazy(() => import('../features/public/TermsPage'))
const PrivacyPage = lazy(() => import('../features/public/PrivacyPage'))
const DashboardPage = lazy(() => import('../features/dashboard/DashboardPage'))
const ReportsPage = lazy(() => import('../features/reports/ReportsPage'))
const NormalQueryPage = lazy(() => import('../pages/NormalQueryPage'))
const QueryResultPage = lazy(() => import('../pages/QueryResultPage'))
const BalancesPage = lazy(() => import('../features/credits/BalancesPage'))
const BalanceHistoryPage = lazy(() => import('../features/credits/BalanceHistoryPage'))
const CustomersPage = lazy(() => import('../features/customers/CustomersPage'))
const CustomerFormPage = lazy(() => import('../features/customers/CustomerFormPage'))
const CustomerSetupPage = lazy(() => import('../features/customers/CustomerSetupPage'))
const UsersPage = lazy(() => import('../features/users/UsersPage'))
const MyAccountPage = lazy(() => import('../features/account/MyAccountPage'))
const ProfilePage = lazy(() => import('../features/account/ProfilePage'))
const BrandSettingsPage = lazy(() => import('../features/brand/BrandSettingsPage'))
const AuditLogPage = lazy(() => import('../features/audit/AuditLogPage'))
const DataSubjectReportPage = lazy(() => import('../features/dataSubject/DataSubjectReportPage'))
const QueryTypesPage = lazy(() => import('../features/catalogue/QueryTypesPage'))
const QueryTypeFormPage = lazy(() => import('../features/catalogue/QueryTypeFormPage'))
const LayoutsPage = lazy(() => import('../features/catalogue/LayoutsPage'))
const LayoutFormPage = lazy(() => import('../features/catalogue/LayoutFormPage'))
const BatchQueryPage = lazy(() => import('../features/batches/BatchQueryPage'))
const ManualEnrichmentPage = lazy(() => import('../features/batches/ManualEnrichmentPage'))
const NewManualEnrichmentPage = lazy(() => import('../features/batches/NewManualEnrichmentPage'))
const AdvancedQueryPage = lazy(() => import('../features/advanced/AdvancedQueryPage'))
const AdvancedResultListPage = lazy(() => import('../features/advanced/AdvancedResultListPage'))
const AdvancedResultPage = lazy(() => import('../features/advanced/AdvancedResultPage'))
const ForbiddenPage = lazy(() => import('../pages/ForbiddenPage'))
/** Screens nobody has built yet: an honest page inside the signed-in layout. */
const ApiQueryPage = lazy(() => import('../features/api/ApiQueryPage'))
const PlaygroundPage = lazy(() => import('../features/api/PlaygroundPage'))

const RESULT_PARAMS = ':document?/:documentType?/:queryType?/:supplyId?/:queryId?/:componentUsedId?'

export const routeTable: RouteEntry[] = [
  // Public layout: the home page only on a main product domain ("/" elsewhere goes to /login).
  { name: 'home', path: '', layout: 'public', guard: 'main-domain', component: HomePage },
  { name: 'about', path: 'about', layout: 'public', component: AboutPage },
  { name: 'services', path: 'services', layout: 'public', component: ServicesPage },
  { name: 'contact', path: 'contact', layout: 'public', component: ContactPage },
  { name: 'terms-of-use', path: 'terms-of-use', layout: 'public', component: TermsPage },
  { name: 'privacy-policy', path: 'privacy-policy', layout: 'public', component: PrivacyPage },

  // Auth layout (other engineers add create-account, forgot-password, verify-code, ... here).
  { name: 'login', path: 'login', layout: 'auth', guard: 'guest', component: LoginPage },
  { name: 'create-account', path: 'create-account', layout: 'auth', guard: 'guest', component: CreateAccountPage },
  { name: 'forgot-password', path: 'forgot-password', layout: 'auth', guard: 'guest', component: RecoveryPage },
  { name: 'verify-code', path: 'verify-code/:code?/:uniqueKey?/:id?', layout: 'auth', guard: 'guest', component: VerifyCodePage },
  { name: 'redefine-new-password', path: 'redefine-new-password', layout: 'auth', guard: 'guest', component: RecoveryPage },
  // Signed in with a generated password: the page itself sends everyone else away.
  { name: 'first-access', path: 'first-access', layout: 'auth', component: FirstAccessPage },

  // Signed-in layout.
  { name: 'dashboard', path: 'dashboard', layout: 'signed-in', component: DashboardPage },
  { name: 'normal-query', path: 'normal-query', layout: 'signed-in', breadcrumb: ['menu.queries', 'menu.normalQuery'], component: NormalQueryPage },
  { name: 'query-result', path: `query-result/${RESULT_PARAMS}`, layout: 'signed-in', component: QueryResultPage },
  { name: 'customer-list', path: 'customer-list', layout: 'signed-in', breadcrumb: ['menu.register', 'menu.customers'], component: CustomersPage },
  { name: 'add-new-customer', path: 'add-new-customer/:uniqueKey?/:id?', layout: 'signed-in', breadcrumb: ['menu.register', 'menu.customers'], component: CustomerFormPage },
  // The guided set-up of a new customer (or the rest of it, for one registered before): under the registration's
  // path, so whoever may register a customer may open it (a static segment outranks the form's :uniqueKey).
  { name: 'customer-setup', path: 'add-new-customer/setup/:uniqueKey?/:id?', layout: 'signed-in', breadcrumb: ['menu.register', 'menu.customers'], component: CustomerSetupPage },
  { name: 'brand-settings', path: 'brand-settings', layout: 'signed-in', breadcrumb: ['menu.register', 'menu.brand'], component: BrandSettingsPage },
  { name: 'audit-log', path: 'audit-log', layout: 'signed-in', breadcrumb: ['menu.register', 'menu.auditLog'], component: AuditLogPage },
  { name: 'data-subject-report', path: 'data-subject-report', layout: 'signed-in', breadcrumb: ['menu.dataSubject'], component: DataSubjectReportPage },
  { name: 'balances', path: 'balances', layout: 'signed-in', breadcrumb: ['menu.financial', 'menu.balances'], component: BalancesPage },
  { name: 'balance-history', path: 'balance-history', layout: 'signed-in', breadcrumb: ['menu.financial', 'menu.balances'], component: BalanceHistoryPage },
  { name: 'supplier-list', path: 'supplier-list', layout: 'signed-in', breadcrumb: ['frame.crumbs.register', 'frame.crumbs.suppliers'], component: SuppliersPage },
  { name: 'add-new-supplier', path: 'add-new-supplier/:uniqueKey?/:id?', layout: 'signed-in', breadcrumb: ['frame.crumbs.register', 'frame.crumbs.suppliers', 'frame.crumbs.addSupplier'], component: SupplierFormPage },
  { name: 'layout-list', path: 'layout-list', layout: 'signed-in', breadcrumb: ['frame.crumbs.register', 'frame.crumbs.layouts'], component: LayoutsPage },
  { name: 'add-new-layout', path: 'add-new-layout/:uniqueKey?/:id?', layout: 'signed-in', breadcrumb: ['frame.crumbs.register', 'frame.crumbs.layouts', 'frame.crumbs.addLayout'], component: LayoutFormPage },
  { name: 'queries-list', path: 'queries-list', layout: 'signed-in', breadcrumb: ['frame.crumbs.queriesList'], component: QueryTypesPage },
  // Consultation/query types add and edit (its path is not in the specification's table).
  { name: 'add-new-query', path: 'add-new-query/:key?', layout: 'signed-in', breadcrumb: ['frame.crumbs.queriesList', 'frame.crumbs.addQuery'], component: QueryTypeFormPage },
  { name: 'advanced-query', path: 'advanced-query', layout: 'signed-in', breadcrumb: ['frame.crumbs.queries', 'frame.crumbs.advancedQuery'], component: AdvancedQueryPage },
  {
    name: 'advanced-query-result-list',
    path: 'advanced-query-result-list/:name?/:address?/:city?/:state?/:telephone?/:cellphone?/:email?/:birth?',
    layout: 'signed-in',
    breadcrumb: ['frame.crumbs.advancedQuery', 'frame.crumbs.advancedResults'],
    component: AdvancedResultListPage,
  },
  { name: 'advanced-query-result', path: `advanced-query-result/${RESULT_PARAMS}`, layout: 'signed-in', breadcrumb: ['frame.crumbs.advancedQuery', 'frame.crumbs.advancedResults'], component: AdvancedResultPage },
  { name: 'batch-query', path: 'batch-query', layout: 'signed-in', breadcrumb: ['frame.crumbs.queries', 'frame.crumbs.batchQuery'], component: BatchQueryPage },
  { name: 'manual-enrichment', path: 'manual-enrichment', layout: 'signed-in', breadcrumb: ['frame.crumbs.queries', 'frame.crumbs.manualEnrichment'], component: ManualEnrichmentPage },
  {
    name: 'new-manual-enrichment',
    path: 'new-manual-enrichment',
    layout: 'signed-in',
    breadcrumb: ['frame.crumbs.queries', 'frame.crumbs.manualEnrichment', 'frame.crumbs.newManualEnrichment'],
    component: NewManualEnrichmentPage,
  },
  { name: 'reports', path: 'reports', layout: 'signed-in', breadcrumb: ['frame.crumbs.reports'], component: ReportsPage },
  { name: 'api-query', path: 'api-query', layout: 'signed-in', breadcrumb: ['frame.crumbs.apiQuery'], component: ApiQueryPage },
  { name: 'playground', path: 'playground', layout: 'signed-in', breadcrumb: ['frame.crumbs.playground'], component: PlaygroundPage },
  { name: 'mail-outbox', path: 'mail-outbox', layout: 'signed-in', breadcrumb: ['menu.register', 'menu.mailOutbox'], component: MailOutboxPage },
  { name: 'users', path: 'users/:groupUniqueKey?/:groupId?', layout: 'signed-in', breadcrumb: ['menu.register', 'menu.users'], component: UsersPage },
  // My account draws its own trail (title Registration, breadcrumb Manage my information).
  { name: 'my-account', path: 'my-account', layout: 'signed-in', component: MyAccountPage },
  { name: 'edit-my-profile', path: 'edit-my-profile/:previousRoute?/:uniqueKey?/:id?', layout: 'signed-in', component: ProfilePage },
  {
    name: 'personal-information',
    path: 'personal-information/:previousRoute?/:uniqueKey?/:id?/:groupUniqueKey?/:groupId?',
    layout: 'signed-in',
    component: ProfilePage,
  },
  { name: 'error-forbidden', path: 'error-forbidden', layout: 'signed-in', component: ForbiddenPage },
]

/** The table's entry for a route name. */
export function routeByName(name: string): RouteEntry | undefined {
  return routeTable.find((r) => r.name === name)
}
