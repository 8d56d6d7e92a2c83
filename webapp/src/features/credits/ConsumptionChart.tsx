import { useTranslation } from 'react-i18next'
import { useTheme } from '@mui/material/styles'
import { BarChart } from '@mui/x-charts/BarChart'
import ChartsLanguage from '../../components/ChartsLanguage'
import { formatNumber, showDate } from '../../lib/format'
import type { ConsumptionSeries } from './consumption'

const EXTRA_COLORS = ['#31A3C9', '#E0A526']

/** A day on an axis tick: day and month (dd/mm in pt-BR, mm/dd in en-US); tooltips show the whole date. */
function shortDay(day: string, locale: string): string {
  return showDate(day, locale).slice(0, 5)
}

/** Credits consumed per day, stacked by category, with axes, legend and a tooltip per day. */
export default function ConsumptionChart({ data }: { data: ConsumptionSeries }) {
  const { t, i18n } = useTranslation()
  const theme = useTheme()
  const lang = i18n.language
  const num = (n: number | null) => (n === null ? '' : formatNumber(n, lang))
  return (
    <div data-testid="consumption-chart" style={{ width: '100%' }}>
      <ChartsLanguage>
        <BarChart
          height={280}
          colors={[theme.palette.primary.main, theme.palette.secondary.main, ...EXTRA_COLORS]}
          grid={{ horizontal: true }}
          xAxis={[
            {
              scaleType: 'band',
              data: data.days,
              label: t('credits.chart.day'),
              valueFormatter: (day: string, context) => (context.location === 'tick' ? shortDay(day, lang) : showDate(day, lang)),
            },
          ]}
          yAxis={[{ label: t('credits.chart.credits'), tickMinStep: 1, valueFormatter: (n: number) => num(n), width: 56 }]}
          series={data.series.map((s) => ({
            id: s.category,
            data: s.data,
            label: t(`credits.categories.${s.category}`),
            stack: 'credits',
            valueFormatter: num,
          }))}
        />
      </ChartsLanguage>
    </div>
  )
}
