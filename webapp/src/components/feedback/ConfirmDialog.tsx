import { lazy, Suspense } from 'react'
import { useAppDispatch, useAppSelector } from '../../store/hooks'
import { confirmAnswered } from '../../store/uiSlice'
import { settleConfirm } from './hooks'

// MUI's dialog in a chunk of its own, loaded when the first question is asked: App mounts this on every
// page, the public site's included.
const ConfirmDialogView = lazy(() => import('./ConfirmDialogView'))

/** The dialog asked for with useConfirm() or usePrompt() (mount once, in App): the first request open. */
export default function ConfirmDialog() {
  const dispatch = useAppDispatch()
  const request = useAppSelector((s) => s.ui.confirms[0])
  if (!request) return null
  const answer = (value: boolean | string | null) => {
    dispatch(confirmAnswered(request.id))
    settleConfirm(request.id, value)
  }
  return (
    <Suspense fallback={null}>
      <ConfirmDialogView request={request} answer={answer} />
    </Suspense>
  )
}
