import { useMemo, useState, type FormEvent } from 'react'
import { useTranslation } from 'react-i18next'
import Alert from '@mui/material/Alert'
import Box from '@mui/material/Box'
import Button from '@mui/material/Button'
import Paper from '@mui/material/Paper'
import TextField from '@mui/material/TextField'
import Typography from '@mui/material/Typography'
import type { GridColDef } from '@mui/x-data-grid'
import ListPage from '../../components/ListPage'
import { errorText } from '../../components/errorText'
import { useNotify } from '../../components/feedback'
import { checkDocument, formatDocument } from '../../lib/documents'
import { downloadFile } from '../../lib/download'
import { showDateTime } from '../../lib/format'
import { maskDocument } from '../../lib/masks'
import { exportUrl } from '../../store/endpoints'
import { useAppSelector } from '../../store/hooks'
import { useDataSubjectReportQuery, type DataSubjectConsultation } from '../../store/generated/bemteviApi'

type FileFormat = 'csv' | 'pdf'

/**
 * The data-subject report (LGPD art. 18): every consultation of one CPF or CNPJ across the platform's
 * companies (a batch's documents among them, naming the batch), the purpose each consulting user gave, and which results are still held and until when; CSV or signed
 * PDF. The super-admin's and the
 * data-protection officer's; the API records every run (a search here is one).
 */
export default function DataSubjectReportPage() {
  const { t, i18n } = useTranslation()
  const lang = i18n.language === 'en-US' ? 'en-US' : 'pt-BR'
  const notify = useNotify()
  const token = useAppSelector((s) => s.auth.authToken)
  const [typed, setTyped] = useState('')
  const [fieldError, setFieldError] = useState<string | null>(null)
  // The document asked for (digits), set on submit only: every run is a recorded reading of someone's data. The
  // query's argument is the document alone (the API layer adds the read-your-writes position): the answer's own
  // position (the run's event) in the argument would start another run, and so on.
  const [document, setDocument] = useState<string | null>(null)
  const [exporting, setExporting] = useState<FileFormat | null>(null)
  // A saved file loses the answer's headers: the PDF's signature is shown to be sent along with it.
  const [signature, setSignature] = useState<{ value: string; keyId: string } | null>(null)
  const { data, error, isError, isFetching, refetch } = useDataSubjectReportQuery(
    { document: document ?? '' },
    { skip: !document, refetchOnMountOrArgChange: true },
  )

  function submit(event: FormEvent) {
    event.preventDefault()
    if (!typed.trim()) {
      setFieldError(t('dataSubject.required'))
      return
    }
    const check = checkDocument(typed)
    if (!check.ok) {
      setFieldError(t(`dataSubject.${check.reason}`))
      return
    }
    setFieldError(null)
    if (check.digits === document) void refetch()
    else {
      setDocument(check.digits)
      setSignature(null)
    }
  }

  async function exportFile(format: FileFormat) {
    if (!document) return
    setExporting(format)
    try {
      const headers = await downloadFile(exportUrl('exportDataSubjectReport', { document, lang, format }), token, `data_subject_${document}.${format}`)
      const value = headers.get('X-Signature')
      if (format === 'pdf' && value) setSignature({ value, keyId: headers.get('X-Signature-Key-Id') ?? '' })
    } catch {
      notify({ type: 'negative', message: t('dataSubject.exportFailed') })
    } finally {
      setExporting(null)
    }
  }

  const known = (key: string) => i18n.exists(key)
  const columns = useMemo<GridColDef<DataSubjectConsultation>[]>(
    () => [
      { field: 'createdAt', headerName: t('dataSubject.when'), minWidth: 150, valueFormatter: (v: string) => showDateTime(v, lang) },
      {
        field: 'userName',
        headerName: t('dataSubject.who'),
        flex: 1,
        minWidth: 170,
        valueGetter: (_v, row) => [row.userName, row.userEmail].filter(Boolean).join(' · ') || '—',
      },
      { field: 'groupName', headerName: t('dataSubject.company'), flex: 1, minWidth: 150, valueGetter: (_v, row) => row.groupName ?? row.groupId },
      {
        field: 'purpose',
        headerName: t('dataSubject.purpose'),
        flex: 1,
        minWidth: 170,
        valueGetter: (_v, row) => row.purpose ?? t('dataSubject.noPurpose'),
      },
      {
        field: 'channel',
        headerName: t('dataSubject.channel'),
        minWidth: 100,
        valueFormatter: (v: string) => (known(`dataSubject.channels.${v}`) ? t(`dataSubject.channels.${v}`) : v),
      },
      { field: 'queryType', headerName: t('dataSubject.queryType'), minWidth: 130 },
      {
        // A batch's document: which batch (how it came, its file; its id on hover), as the files' Reference.
        field: 'batchId',
        headerName: t('dataSubject.reference'),
        flex: 1,
        minWidth: 170,
        valueGetter: (_v, row) =>
          row.batchId ? t('dataSubject.batch', { origin: t(`dataSubject.origins.${row.origin ?? 'batch'}`), file: row.fileName ?? '' }) : '—',
        renderCell: ({ row, value }) =>
          row.batchId ? (
            <span title={t('dataSubject.batchId', { id: row.batchId })} data-testid="data-subject-batch">
              {value as string}
            </span>
          ) : (
            value
          ),
      },
      {
        field: 'status',
        headerName: t('dataSubject.status'),
        minWidth: 110,
        valueFormatter: (v: string) => (known(`dataSubject.statuses.${v}`) ? t(`dataSubject.statuses.${v}`) : v),
      },
      {
        field: 'keptUntil',
        headerName: t('dataSubject.keptUntil'),
        minWidth: 160,
        valueFormatter: (v: string | null | undefined) => (v ? showDateTime(v, lang) : t('dataSubject.notKept')),
      },
    ],
    // eslint-disable-next-line react-hooks/exhaustive-deps -- the helpers follow t and lang
    [t, i18n, lang],
  )

  const rows = data?.data
  const held = rows?.filter((r) => r.keptUntil).length ?? 0
  const busy = isFetching || exporting !== null
  return (
    <ListPage<DataSubjectConsultation>
      title={t('dataSubject.title')}
      intro={t('dataSubject.intro')}
      actions={
        data && (
          <>
            <Button variant="outlined" onClick={() => void exportFile('csv')} disabled={busy} data-testid="data-subject-csv">
              {t('dataSubject.exportCsv')}
            </Button>
            <Button variant="contained" onClick={() => void exportFile('pdf')} disabled={busy} data-testid="data-subject-pdf">
              {t('dataSubject.exportPdf')}
            </Button>
          </>
        )
      }
      top={
        <Paper
          component="form"
          variant="outlined"
          noValidate
          onSubmit={submit}
          sx={{ p: 2, display: 'flex', flexDirection: { xs: 'column', sm: 'row' }, alignItems: { xs: 'stretch', sm: 'flex-start' }, gap: 2 }}
        >
          <TextField
            size="small"
            label={t('dataSubject.document')}
            placeholder={t('dataSubject.placeholder')}
            value={typed}
            onChange={(e) => {
              setTyped(maskDocument(e.target.value))
              setFieldError(null)
            }}
            error={!!fieldError}
            helperText={fieldError ?? undefined}
            sx={{ flex: { sm: '0 1 20rem' }, minWidth: 0 }}
            slotProps={{
              inputLabel: { shrink: true },
              htmlInput: { inputMode: 'numeric', autoComplete: 'off', maxLength: 18, 'data-testid': 'data-subject-document', 'aria-invalid': !!fieldError },
              formHelperText: { 'data-testid': 'data-subject-document-error' } as object,
            }}
          />
          <Button type="submit" variant="contained" disabled={isFetching} data-testid="data-subject-search" sx={{ flexShrink: 0, height: 40 }}>
            {isFetching ? t('dataSubject.searching') : t('dataSubject.search')}
          </Button>
        </Paper>
      }
      heading={
        data ? (
          <Box component="span" data-testid="data-subject-summary">
            {t('dataSubject.consultations', { count: data.data.length, document: formatDocument(data.document) })}
            {' · '}
            {t('dataSubject.held', { count: held })}
          </Box>
        ) : undefined
      }
      columns={columns}
      rows={rows}
      getRowId={(r) => r.consultationId}
      loading={isFetching && !data}
      error={isError ? errorText(error, t, known) : null}
      onRetry={() => void refetch()}
      emptyText={document ? t('dataSubject.empty') : t('dataSubject.before')}
      narrowHidden={['channel', 'queryType', 'batchId', 'status']}
      testId="data-subject-table"
      rowTestId="data-subject-row"
    >
      {data && (
        <Typography variant="body2" color="text.secondary" data-testid="data-subject-signed-note">
          {t('dataSubject.signedNote')}
        </Typography>
      )}
      {data && signature && (
        <Alert severity="success" data-testid="data-subject-signature">
          {t('dataSubject.signature', { keyId: signature.keyId })}
          <Box component="code" data-testid="data-subject-signature-value" sx={{ display: 'block', mt: 0.5, overflowWrap: 'anywhere', userSelect: 'all' }}>
            {signature.value}
          </Box>
        </Alert>
      )}
    </ListPage>
  )
}
