import { useTranslation } from 'react-i18next'
import { formatNumber } from '../../lib/format'
import type { CategoryFigures } from '../../store/generated/bemteviApi'

/** "12 de 100" or "12 · Ilimitado": what a category has used against what it may use. */
export function UsedOfLimit({ figures }: { figures: CategoryFigures }) {
  const { t, i18n } = useTranslation()
  const num = (n: number) => formatNumber(n, i18n.language)
  if (figures.unlimited) return <>{t('credits.usedUnlimited', { used: num(figures.used) })}</>
  return <>{t('credits.usedOfLimit', { used: num(figures.used), limit: num(figures.limit ?? 0) })}</>
}

export function Available({ figures }: { figures: CategoryFigures }) {
  const { t, i18n } = useTranslation()
  if (figures.available === null) return <>{t('credits.unlimited')}</>
  return <>{formatNumber(figures.available, i18n.language)}</>
}
