import LanguageSwitch from '../components/LanguageSwitch'
import { SafeOutlet } from '../components/ScreenErrorBoundary'

export default function AuthLayout() {
  return (
    <div className="auth-layout">
      <div className="auth-toolbar">
        <LanguageSwitch />
      </div>
      <SafeOutlet />
    </div>
  )
}
