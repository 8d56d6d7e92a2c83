import type { ReactNode } from 'react'
import { useTranslation } from 'react-i18next'
import Alert from '@mui/material/Alert'
import Box from '@mui/material/Box'
import Button from '@mui/material/Button'
import LinearProgress from '@mui/material/LinearProgress'
import Paper from '@mui/material/Paper'
import Skeleton from '@mui/material/Skeleton'
import EmptyState from './EmptyState'
import Typography from '@mui/material/Typography'

/**
 * One chart's card: its title, and exactly one of loading (a placeholder of the chart's height),
 * error (the translated text with Try again), empty (the screen's sentence) or the chart. It imports
 * no chart library, so a screen's chart chunk is the only one that does. While new figures are fetched for a
 * chart already on screen (`refreshing`) the chart stays, a thin bar over it says more is coming.
 */
export default function ChartCard({
  title,
  subtitle,
  height,
  loading,
  refreshing = false,
  error,
  onRetry,
  empty,
  emptyText,
  emptyAction,
  testId,
  actions,
  children,
}: {
  title: string
  subtitle?: string
  height: number
  /** Nothing to show yet: the placeholder. */
  loading: boolean
  /** Something on screen and newer figures on the way: it stays, under a progress bar. */
  refreshing?: boolean
  error: string | null
  onRetry?: () => void
  empty: boolean
  emptyText: string
  /** Under the empty text: what to do so the chart has something to show. */
  emptyAction?: ReactNode
  testId: string
  actions?: ReactNode
  children: () => ReactNode
}) {
  const { t } = useTranslation()
  const state = loading ? 'loading' : error ? 'error' : empty ? 'empty' : 'ready'
  return (
    <Paper
      variant="outlined"
      sx={{ p: { xs: 1.5, sm: 2 }, minWidth: 0 }}
      data-testid={testId}
      data-state={state}
      aria-busy={loading || refreshing}
      component="section"
    >
      <Typography variant="h6" component="h2" sx={{ fontSize: '1.05rem', fontWeight: 600 }}>
        {title}
      </Typography>
      {subtitle && (
        <Typography variant="body2" color="text.secondary">
          {subtitle}
        </Typography>
      )}
      {actions}
      {/* Always 4 px high, so the card does not move when the bar comes and goes. */}
      <Box sx={{ height: 4, mt: 0.5 }}>
        {refreshing && state !== 'loading' && (
          <LinearProgress aria-label={t('app.loading')} data-testid={`${testId}-refreshing`} sx={{ height: 4, borderRadius: 2 }} />
        )}
      </Box>
      <div style={{ minHeight: height, display: 'flex', flexDirection: 'column', justifyContent: 'center', marginTop: 4 }}>
        {state === 'loading' && (
          <Skeleton variant="rounded" height={height} aria-label={t('app.loading')} />
        )}
        {state === 'error' && (
          <Alert
            severity="error"
            role="alert"
            action={
              onRetry && (
                <Button color="inherit" size="small" onClick={onRetry}>
                  {t('app.retry')}
                </Button>
              )
            }
          >
            {error}
          </Alert>
        )}
        {state === 'empty' && <EmptyState text={emptyText} action={emptyAction} testId={`${testId}-empty`} />}
        {state === 'ready' && children()}
      </div>
    </Paper>
  )
}
