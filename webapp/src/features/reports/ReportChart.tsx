import { useTranslation } from 'react-i18next'
import { useTheme } from '@mui/material/styles'
import { BarChart } from '@mui/x-charts/BarChart'
import ChartsLanguage from '../../components/ChartsLanguage'
import { formatNumber, showDate } from '../../lib/format'
import type { ChartSeries } from './reportData'

// Colours beside the brand's two for the further keys (readable on white).
const EXTRA_COLORS = ['#31A3C9', '#E0A526', '#8E6CC4', '#D65F5F']

/** Consultations per period, stacked by the chosen dimension's keys (a chunk of its own with MUI X Charts). */
export default function ReportChart({ data, name }: { data: ChartSeries; name: (key: string) => string }) {
  const { t, i18n } = useTranslation()
  const theme = useTheme()
  const lang = i18n.language
  const num = (n: number | null) => (n === null ? '' : formatNumber(n, lang))
  return (
    <div data-testid="report-chart" style={{ width: '100%' }}>
      <ChartsLanguage>
        <BarChart
          height={300}
          colors={[theme.palette.primary.main, theme.palette.secondary.main, ...EXTRA_COLORS]}
          grid={{ horizontal: true }}
          xAxis={[
            {
              scaleType: 'band',
              data: data.periods,
              label: t('reports.columns.period'),
              valueFormatter: (day: string, context) =>
                context.location === 'tick' ? showDate(day, lang).slice(0, 5) : showDate(day, lang),
            },
          ]}
          yAxis={[
            {
              label: t('reports.columns.consultations'),
              tickMinStep: 1,
              valueFormatter: (n: number) => num(n),
              width: 56,
            },
          ]}
          series={data.series.map((s) => ({
            id: s.key || '-',
            data: s.data,
            label: name(s.key),
            stack: 'consultations',
            valueFormatter: num,
          }))}
        />
      </ChartsLanguage>
    </div>
  )
}
