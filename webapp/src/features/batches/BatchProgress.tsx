import { useTranslation } from 'react-i18next'
import Box from '@mui/material/Box'
import LinearProgress from '@mui/material/LinearProgress'
import Typography from '@mui/material/Typography'
import { formatNumber } from '../../lib/format'
import type { BatchRow } from './api'
import { isRunning, percentDone, showEta } from './rules'
import { useLiveProgress } from './useLiveProgress'

/** A batch's progress cell: live bar while it runs (records done / total, found, time left). */
export default function BatchProgress({ row, onOver }: { row: BatchRow; onOver: () => void }) {
  const { t, i18n } = useTranslation()
  const lang = i18n.language
  const running = isRunning(row.status)
  const live = useLiveProgress(row.id, running, onOver)
  const records = live?.records || row.records
  const done = live?.done ?? row.done
  const found = live?.found ?? row.found
  const eta = showEta(live?.etaSeconds)
  const status = live?.status ?? row.status
  return (
    <Box sx={{ width: '100%', py: 0.5 }} data-testid="batch-progress">
      {running && (
        <LinearProgress
          variant={status === 'waiting' ? 'indeterminate' : 'determinate'}
          value={percentDone(done, records)}
          sx={{ mb: 0.5 }}
          aria-label={t('batches.list.progress')}
        />
      )}
      <Typography variant="caption" component="div" sx={{ lineHeight: 1.3, whiteSpace: 'normal' }}>
        {t('batches.list.progressText', { done: formatNumber(done, lang), records: formatNumber(records, lang), found: formatNumber(found, lang), count: found })}
        {running && eta ? ` · ${t('batches.list.eta', { eta })}` : ''}
      </Typography>
    </Box>
  )
}
