import { useEffect } from 'react'
import { useLocation, useNavigate } from 'react-router'
import { useAppDispatch, useAppSelector } from '../store/hooks'
import { setForbidden } from '../store/uiSlice'

/** Scrolls to the top on navigation and follows an access_denied answer to /error-forbidden. */
export default function NavigationEffects() {
  const { pathname } = useLocation()
  const navigate = useNavigate()
  const forbidden = useAppSelector((s) => s.ui.forbidden)
  const dispatch = useAppDispatch()

  useEffect(() => {
    window.scrollTo?.(0, 0)
  }, [pathname])

  useEffect(() => {
    if (forbidden) {
      dispatch(setForbidden(false))
      navigate('/error-forbidden', { replace: true })
    }
  }, [forbidden, dispatch, navigate])

  return null
}
