import { useState, type FormEvent } from 'react'
import { useTranslation } from 'react-i18next'
import { useNavigate } from 'react-router'
import Alert from '@mui/material/Alert'
import Box from '@mui/material/Box'
import Button from '@mui/material/Button'
import Paper from '@mui/material/Paper'
import TextField from '@mui/material/TextField'
import Breadcrumbs from '../../components/Breadcrumbs'
import { useBrand } from '../../components/useBrand'
import { anyFilled, emptyCriteria, FIELDS, resultListPath, type Criteria, type Field } from './criteria'
import './advanced.css'

const INPUTS: Partial<Record<Field, { type?: string; inputMode?: 'numeric' | 'email' | 'tel'; maxLength: number }>> = {
  state: { maxLength: 2 },
  telephone: { inputMode: 'tel', maxLength: 30 },
  cellphone: { inputMode: 'tel', maxLength: 30 },
  email: { inputMode: 'email', maxLength: 254 },
  birth: { type: 'date', maxLength: 10 },
}

/** The default advanced-query banner (200x1134): artwork in the brand's colours, no image download. */
function DefaultBanner() {
  return (
    <svg className="advanced-banner-default" viewBox="0 0 200 1134" preserveAspectRatio="xMidYMid slice" aria-hidden="true" focusable="false">
      <rect width="200" height="1134" fill="var(--primary)" />
      <circle cx="170" cy="160" r="120" fill="var(--secondary)" opacity="0.4" />
      <circle cx="30" cy="980" r="140" fill="var(--lighter)" opacity="0.2" />
      <circle cx="92" cy="520" r="46" fill="none" stroke="#fff" strokeWidth="14" />
      <path d="M124 552l38 38" stroke="#fff" strokeWidth="16" strokeLinecap="round" />
      <rect x="40" y="640" width="120" height="10" rx="5" fill="var(--lighter)" />
      <rect x="40" y="664" width="84" height="10" rx="5" fill="var(--lighter)" opacity="0.7" />
    </svg>
  )
}

/** advanced-query: the search form, the group's advanced-query banner beside it (the default one without). */
export default function AdvancedQueryPage() {
  const { t } = useTranslation()
  const navigate = useNavigate()
  const { brand } = useBrand()
  const [criteria, setCriteria] = useState<Criteria>(emptyCriteria())
  const [refused, setRefused] = useState(false)
  const [bannerFailed, setBannerFailed] = useState<string | null>(null)
  const banner = brand.advancedQueryBanner && brand.advancedQueryBanner !== bannerFailed ? brand.advancedQueryBanner : null

  const submit = (event: FormEvent) => {
    event.preventDefault()
    if (!anyFilled(criteria)) {
      setRefused(true)
      return
    }
    navigate(resultListPath(criteria))
  }

  return (
    <div className="page advanced-query">
      <Breadcrumbs items={[{ label: t('query.breadcrumbQueries') }, { label: t('advanced.title') }]} />
      <h1>{t('advanced.title')}</h1>
      <div className="advanced-layout">
        <Paper component="form" variant="outlined" onSubmit={(e: FormEvent) => submit(e)} noValidate sx={{ p: 2, flex: 1, minWidth: 0 }}>
          <p className="muted">{t('advanced.intro')}</p>
          <Box sx={{ display: 'grid', gridTemplateColumns: { xs: '1fr', sm: '1fr 1fr' }, gap: 2, mb: 2 }}>
            {FIELDS.map((field) => {
              const input = INPUTS[field] ?? { maxLength: 100 }
              const hint = (t('advanced.hints', { returnObjects: true }) as Record<string, string>)[field]
              return (
                <TextField
                  key={field}
                  name={field}
                  type={input.type ?? 'text'}
                  label={t(`advanced.fields.${field}`)}
                  value={criteria[field]}
                  helperText={hint}
                  onChange={(e) => {
                    setCriteria({ ...criteria, [field]: e.target.value })
                    setRefused(false)
                  }}
                  slotProps={{
                    inputLabel: { shrink: true },
                    htmlInput: { maxLength: input.maxLength, inputMode: input.inputMode, autoComplete: 'off', 'data-testid': `advanced-${field}` },
                  }}
                />
              )
            })}
          </Box>
          {refused && (
            <Alert severity="warning" role="alert" data-testid="advanced-fill-one" sx={{ mb: 2 }}>
              {t('advanced.fillOne')}
            </Alert>
          )}
          <Box sx={{ display: 'flex', gap: 1, flexWrap: 'wrap' }}>
            <Button type="submit" variant="contained" data-testid="advanced-submit">
              {t('advanced.search')}
            </Button>
            <Button
              type="button"
              variant="outlined"
              onClick={() => {
                setCriteria(emptyCriteria())
                setRefused(false)
              }}
            >
              {t('advanced.clear')}
            </Button>
          </Box>
        </Paper>
        <aside className="advanced-banner" data-testid="advanced-banner">
          {banner ? <img src={banner} alt={t('advanced.bannerAlt')} onError={() => setBannerFailed(banner)} /> : <DefaultBanner />}
        </aside>
      </div>
    </div>
  )
}
