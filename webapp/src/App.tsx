import BrandApplier from './components/BrandApplier'
import NavigationEffects from './components/NavigationEffects'
import WarningDialog from './components/WarningDialog'
import { ConfirmDialog, LoadingOverlay, Notifications } from './components/feedback'
import { AppRoutes } from './routes/AppRoutes'

// Routes live in routes/routeTable.ts: add a line there for a new screen.
export { AppRoutes }

export default function App() {
  return (
    <>
      <BrandApplier />
      <NavigationEffects />
      <AppRoutes />
      <WarningDialog />
      <ConfirmDialog />
      <Notifications />
      <LoadingOverlay />
    </>
  )
}
