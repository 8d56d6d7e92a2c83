import type { GridRenderCellParams, GridValidRowModel } from '@mui/x-data-grid'
import { CellText } from './CellText'

/** A grid column's renderCell showing its formatted value as a CellText (one line: file and user names). */
export function textCell<Row extends GridValidRowModel>(lines = 3) {
  function TextCell(params: GridRenderCellParams<Row>) {
    const shown = params.formattedValue ?? params.value
    if (shown === null || shown === undefined || shown === '') return null
    return <CellText text={String(shown)} lines={lines} />
  }
  return TextCell
}
