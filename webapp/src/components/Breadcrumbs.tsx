import { Link as RouterLink } from 'react-router'
import { useTranslation } from 'react-i18next'
import MuiBreadcrumbs from '@mui/material/Breadcrumbs'
import Link from '@mui/material/Link'
import Typography from '@mui/material/Typography'

export interface Crumb {
  label: string
  to?: string
}

/** The trail over a signed-in screen (MUI Breadcrumbs, themed by the brand); the last is the page. */
export default function Breadcrumbs({ items }: { items: Crumb[] }) {
  const { t } = useTranslation()
  return (
    <MuiBreadcrumbs className="breadcrumbs" aria-label={t('app.breadcrumb')} sx={{ mb: 1, fontSize: '0.9rem' }}>
      {items.map((item, i) =>
        item.to ? (
          <Link key={`${item.label}-${i}`} component={RouterLink} to={item.to} underline="hover" color="inherit">
            {item.label}
          </Link>
        ) : (
          <Typography
            key={`${item.label}-${i}`}
            component="span"
            aria-current={i === items.length - 1 ? 'page' : undefined}
            sx={{ fontSize: 'inherit', color: i === items.length - 1 ? 'text.primary' : 'inherit' }}
          >
            {item.label}
          </Typography>
        ),
      )}
    </MuiBreadcrumbs>
  )
}
