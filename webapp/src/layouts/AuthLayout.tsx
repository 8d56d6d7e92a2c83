import { Outlet } from 'react-router'
import LanguageSwitch from '../components/LanguageSwitch'

export default function AuthLayout() {
  return (
    <div className="auth-layout">
      <div className="auth-toolbar">
        <LanguageSwitch />
      </div>
      <Outlet />
    </div>
  )
}
