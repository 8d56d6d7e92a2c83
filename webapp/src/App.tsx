import { lazy, Suspense } from 'react'
import { Route, Routes } from 'react-router'
import BrandApplier from './components/BrandApplier'
import NavigationEffects from './components/NavigationEffects'
import Spinner from './components/Spinner'
import WarningDialog from './components/WarningDialog'
import { GuestOnly, RequireAuth, RootRedirect } from './routes/guards'

// Every screen is its own chunk; the signed-in area is never loaded on /login.
const AuthLayout = lazy(() => import('./layouts/AuthLayout'))
const LoginPage = lazy(() => import('./pages/LoginPage'))
const SignedInLayout = lazy(() => import('./layouts/SignedInLayout'))
const DashboardPage = lazy(() => import('./pages/DashboardPage'))
const NormalQueryPage = lazy(() => import('./pages/NormalQueryPage'))
const QueryResultPage = lazy(() => import('./pages/QueryResultPage'))
const BalancesPage = lazy(() => import('./features/credits/BalancesPage'))
const BalanceHistoryPage = lazy(() => import('./features/credits/BalanceHistoryPage'))
const CustomersPage = lazy(() => import('./features/customers/CustomersPage'))
const CustomerFormPage = lazy(() => import('./features/customers/CustomerFormPage'))
const ForbiddenPage = lazy(() => import('./pages/ForbiddenPage'))
const NotFoundPage = lazy(() => import('./pages/NotFoundPage'))

export function AppRoutes() {
  return (
    <Suspense fallback={<Spinner overlay />}>
      <Routes>
        <Route index element={<RootRedirect />} />
        <Route element={<GuestOnly />}>
          <Route element={<AuthLayout />}>
            <Route path="login" element={<LoginPage />} />
          </Route>
        </Route>
        <Route element={<RequireAuth />}>
          <Route element={<SignedInLayout />}>
            <Route path="dashboard" element={<DashboardPage />} />
            <Route path="normal-query" element={<NormalQueryPage />} />
            <Route
              path="query-result/:document?/:documentType?/:queryType?/:supplyId?/:queryId?/:componentUsedId?"
              element={<QueryResultPage />}
            />
            <Route path="customer-list" element={<CustomersPage />} />
            <Route path="add-new-customer/:uniqueKey?/:id?" element={<CustomerFormPage />} />
            <Route path="balances" element={<BalancesPage />} />
            <Route path="balance-history" element={<BalanceHistoryPage />} />
            <Route path="error-forbidden" element={<ForbiddenPage />} />
          </Route>
        </Route>
        <Route path="*" element={<NotFoundPage />} />
      </Routes>
    </Suspense>
  )
}

export default function App() {
  return (
    <>
      <BrandApplier />
      <NavigationEffects />
      <AppRoutes />
      <WarningDialog />
    </>
  )
}
