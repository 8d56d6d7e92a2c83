import { useTranslation } from 'react-i18next'
import Autocomplete from '@mui/material/Autocomplete'
import Chip from '@mui/material/Chip'
import TextField from '@mui/material/TextField'
import { WIDE } from '../../components/form/formHooks'
import { useListLayoutsQuery, type LayoutView } from '../../store/generated/bemteviApi'

/**
 * The layouts a supplier serves, chosen by name from the catalogue (stored by id): the super-admin typed layout
 * keys before. An id the catalogue no longer lists stays, shown as it is, until removed.
 */
export default function SupplierLayoutsPicker({ value, onChange }: { value: string[]; onChange: (ids: string[]) => void }) {
  const { t, i18n } = useTranslation()
  // Every layout a super-admin sees, in one page (the API's largest): the platform ships 24 ready ones.
  const layouts = useListLayoutsQuery({ perPage: 100 })
  const byId = new Map<string, LayoutView>((layouts.data?.data ?? []).map((l) => [l.id, l]))
  const name = (id: string) => {
    const layout = byId.get(id)
    if (!layout) return id
    const title = layout.readyTitle?.[i18n.language] ?? layout.fileName
    return `${title} (${layout.acceptedExtension.toUpperCase()})`
  }
  const options = [...byId.keys(), ...value.filter((id) => !byId.has(id))]
  return (
    <Autocomplete
      multiple
      options={options}
      value={value}
      onChange={(_, ids) => onChange(ids)}
      getOptionLabel={name}
      filterSelectedOptions
      loading={layouts.isFetching}
      loadingText={t('app.loading')}
      noOptionsText={t('suppliers.noLayouts')}
      sx={WIDE}
      renderValue={(ids, getItemProps) =>
        ids.map((id, index) => {
          const { key, ...item } = getItemProps({ index })
          return <Chip key={key} label={name(id)} size="small" {...item} data-testid="supplier-layout-chip" />
        })
      }
      renderOption={(props, id) => {
        const { key, ...rest } = props
        return (
          <li key={key} {...rest} data-testid="supplier-layout-option">
            {name(id)}
          </li>
        )
      }}
      renderInput={(params) => (
        <TextField
          {...params}
          label={t('suppliers.allowedLayouts')}
          helperText={t('suppliers.allowedLayoutsHint')}
          slotProps={{ ...params.slotProps, inputLabel: { ...params.slotProps?.inputLabel, shrink: true } }}
          data-testid="supplier-layouts"
        />
      )}
    />
  )
}
