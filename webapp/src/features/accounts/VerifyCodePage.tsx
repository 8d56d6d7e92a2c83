import { useSearchParams } from 'react-router'
import RecoveryPage from './RecoveryPage'
import TwoFactorPage from './TwoFactorPage'

/**
 * verify-code/:code?/:uniqueKey?/:id?: the code of a sign-in with two-step verification (?challenge=<id>, where
 * the login page sends it) or, without one, the recovery code of a forgotten password (the recovery mail's link).
 */
export default function VerifyCodePage() {
  const [params] = useSearchParams()
  return params.has('challenge') ? <TwoFactorPage /> : <RecoveryPage />
}
