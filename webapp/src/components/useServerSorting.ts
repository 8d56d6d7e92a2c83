import { useState } from 'react'
import type { GridSortModel } from '@mui/x-data-grid'

/**
 * Server-side sorting for a `ListPage`: the grid's sort model, and the API's `order` for it
 * ('field' ascending, '-field' descending; undefined leaves the API's own order). `fields` are the
 * columns the endpoint's allow-list takes: ListPage makes the others unsortable. A new order goes
 * back to page 1 (`onChange`).
 */
export function useServerSorting(fields: string[], onChange?: () => void) {
  const [model, setModel] = useState<GridSortModel>([])
  const first = model[0]
  const order = first?.sort ? `${first.sort === 'desc' ? '-' : ''}${first.field}` : undefined
  return {
    order,
    sorting: {
      model,
      fields,
      onChange: (next: GridSortModel) => {
        setModel(next)
        onChange?.()
      },
    },
  }
}
