import { useTranslation } from 'react-i18next'
import ListItemIcon from '@mui/material/ListItemIcon'
import MenuItem from '@mui/material/MenuItem'
import Stack from '@mui/material/Stack'
import TextField from '@mui/material/TextField'
import MenuIcon from '../../components/menuIcons'

// The icons a query type may wear, by their Material Icons names (what the server stores): people, companies and
// searches first. Every one is drawn by the app, so the picker shows each, not a name to guess.
const QUERY_TYPE_ICONS = [
  'person',
  'business',
  'group',
  'search',
  'manage_search',
  'policy',
  'assessment',
  'payments',
  'account_balance_wallet',
  'mail',
  'local_shipping',
  'history',
] as const

/** A query type's icon chosen from the drawn ones, each shown with its name in the user's language. */
export default function QueryTypeIconPicker({
  value,
  onChange,
  error,
}: {
  value: string
  onChange: (icon: string) => void
  error?: string
}) {
  const { t } = useTranslation()
  const label = (icon: string) => t(`catalogue.queryTypes.icons.${icon}`, { defaultValue: icon })
  // A name stored before the picker (typed by hand) stays choosable, so an edit does not lose it unseen.
  const icons: readonly string[] = value && !(QUERY_TYPE_ICONS as readonly string[]).includes(value) ? [...QUERY_TYPE_ICONS, value] : QUERY_TYPE_ICONS
  return (
    <TextField
      select
      label={t('catalogue.queryTypes.icon')}
      value={value}
      onChange={(e) => onChange(e.target.value)}
      error={!!error}
      helperText={error}
      fullWidth
      data-testid="query-type-icon"
      slotProps={{
        inputLabel: { shrink: true },
        select: {
          displayEmpty: true,
          renderValue: (chosen) =>
            chosen ? (
              <Stack direction="row" spacing={1} sx={{ alignItems: 'center' }}>
                <MenuIcon name={chosen as string} />
                <span>{label(chosen as string)}</span>
              </Stack>
            ) : (
              <em>{t('catalogue.queryTypes.iconPick')}</em>
            ),
        },
      }}
    >
      {icons.map((icon) => (
        <MenuItem key={icon} value={icon} data-testid={`query-type-icon-${icon}`}>
          <ListItemIcon>
            <MenuIcon name={icon} />
          </ListItemIcon>
          {label(icon)}
        </MenuItem>
      ))}
    </TextField>
  )
}
