import { Component, Suspense, type ErrorInfo, type ReactNode } from 'react'
import { useTranslation } from 'react-i18next'
import { Link, Outlet, useLocation } from 'react-router'
import Spinner from './Spinner'

interface Props {
  children: ReactNode
  /** A new value (the next path) draws the children again. */
  resetKey: string
}

interface State {
  failed: boolean
  resetKey: string
}

/**
 * Keeps a screen that fails to draw (e.g. a field read from an answer's null) from unmounting the
 * whole app: React drops the tree above an uncaught render error, which left a blank page. The
 * failing screen is replaced by a translated message; the frame around it stays usable, and going
 * to another path draws again (without remounting what did not fail).
 */
export class ScreenErrorBoundary extends Component<Props, State> {
  state: State = { failed: false, resetKey: this.props.resetKey }

  static getDerivedStateFromError(): Partial<State> {
    return { failed: true }
  }

  static getDerivedStateFromProps(props: Props, state: State): Partial<State> | null {
    return props.resetKey === state.resetKey ? null : { failed: false, resetKey: props.resetKey }
  }

  componentDidCatch(error: Error, info: ErrorInfo): void {
    console.error('screen failed to draw', error, info.componentStack)
  }

  render(): ReactNode {
    return this.state.failed ? <ScreenError /> : this.props.children
  }
}

function ScreenError() {
  const { t } = useTranslation()
  return (
    <div className="card error-box" role="alert" data-testid="screen-error">
      <p>{t('app.screenError')}</p>
      <Link to="/" className="btn" reloadDocument>
        {t('app.home')}
      </Link>
    </div>
  )
}

/**
 * A layout's <Outlet/> behind a ScreenErrorBoundary that tries again on every path. A screen whose code is
 * still loading shows a spinner in its place, inside the layout: the frame (menu, header) stays on screen.
 */
export function SafeOutlet() {
  const { pathname } = useLocation()
  return (
    <ScreenErrorBoundary resetKey={pathname}>
      <Suspense fallback={<Spinner />}>
        <Outlet />
      </Suspense>
    </ScreenErrorBoundary>
  )
}
