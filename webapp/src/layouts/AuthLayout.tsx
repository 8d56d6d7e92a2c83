import LanguageSwitch from '../components/LanguageSwitch'
import { SafeOutlet } from '../components/ScreenErrorBoundary'
import MuiProvider from '../components/mui/MuiProvider'

export default function AuthLayout() {
  return (
    <MuiProvider>
      <div className="auth-layout">
        <div className="auth-toolbar">
          <LanguageSwitch />
        </div>
        <SafeOutlet />
      </div>
    </MuiProvider>
  )
}
