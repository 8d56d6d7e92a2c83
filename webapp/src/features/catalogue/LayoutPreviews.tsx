import { useEffect, useState, type ReactNode } from 'react'
import { useTranslation } from 'react-i18next'
import Alert from '@mui/material/Alert'
import Box from '@mui/material/Box'
import ToggleButton from '@mui/material/ToggleButton'
import ToggleButtonGroup from '@mui/material/ToggleButtonGroup'
import Typography from '@mui/material/Typography'
import { errorText } from '../../components/errorText'
import { FormSection, TextInput } from '../../components/form/fields'
import { WIDE } from '../../components/form/formHooks'
import {
  usePreviewLayoutMutation,
  usePreviewLayoutRecordMutation,
  type ExitFieldView,
  type LayoutRequest,
} from '../../store/generated/bemteviApi'
import { fieldOf } from './exitFields'

/** How long typing pauses before the preview asks the server (ms). */
const PREVIEW_DELAY = 250

/** Asks the server once its argument stops changing for a moment; nothing while the argument is null. */
function useAskWhenTypingPauses<A>(ask: (arg: A) => unknown, arg: A | null) {
  const text = arg === null ? null : JSON.stringify(arg)
  useEffect(() => {
    if (text === null) return
    const timer = window.setTimeout(() => void ask(JSON.parse(text) as A), PREVIEW_DELAY)
    return () => window.clearTimeout(timer)
  }, [text, ask])
}

/** A framed section of the layout form that shows what the layout makes of a line. */
function PreviewSection({ label, title, dashed, testId, children }: { label: string; title: string; dashed?: boolean; testId: string; children: ReactNode }) {
  return (
    <Box
      component="section"
      sx={{
        ...WIDE,
        p: 2,
        border: 1,
        ...(dashed ? { borderStyle: 'dashed' } : {}),
        borderColor: 'primary.main',
        borderRadius: 1,
        minWidth: 0,
        display: 'grid',
        gap: 1,
      }}
      aria-label={label}
      data-testid={testId}
    >
      <FormSection>{title}</FormSection>
      {children}
    </Box>
  )
}

/** The line the exit rows write, under its heading. */
function ExitLine({ testId, children }: { testId: string; children: ReactNode }) {
  const { t } = useTranslation()
  return (
    <>
      <h3>{t('catalogue.layouts.exitLine')}</h3>
      <pre className="mono preview-line" data-testid={testId}>
        {children}
      </pre>
    </>
  )
}

/** The real record's preview: one record of the demo data through the exit rows (free, for the author). */
export function LayoutRecordPreview({ request, hasExits, exitFields }: { request: LayoutRequest; hasExits: boolean; exitFields: ExitFieldView[] }) {
  const { t, i18n } = useTranslation()
  const lang = i18n.language === 'en-US' ? 'en-US' : 'pt-BR'
  const [demoKind, setDemoKind] = useState<'cpf' | 'cnpj'>('cpf')
  const [previewRecord, recordShown] = usePreviewLayoutRecordMutation()
  useAskWhenTypingPauses(previewRecord, hasExits ? { layoutRecordPreviewRequest: { layout: request, kind: demoKind } } : null)
  const record = recordShown.data?.data
  return (
    <PreviewSection label={t('catalogue.layouts.record.title')} title={t('catalogue.layouts.record.title')} testId="layout-record-preview">
      <Alert severity="info" data-testid="layout-record-free">
        {t('catalogue.layouts.record.free')}
      </Alert>
      <Box
        sx={{
          display: 'flex',
          gap: 1,
          alignItems: 'center',
          flexWrap: 'wrap',
        }}
      >
        <Typography variant="body2">{t('catalogue.layouts.record.kind')}</Typography>
        <ToggleButtonGroup size="small" exclusive value={demoKind} onChange={(_e, v: 'cpf' | 'cnpj' | null) => v && setDemoKind(v)}>
          <ToggleButton value="cpf" data-testid="layout-record-cpf">
            CPF
          </ToggleButton>
          <ToggleButton value="cnpj" data-testid="layout-record-cnpj">
            CNPJ
          </ToggleButton>
        </ToggleButtonGroup>
      </Box>
      {recordShown.error && hasExits && (
        <Alert severity="error" role="alert" data-testid="layout-record-error">
          {errorText(recordShown.error, t, (k) => i18n.exists(k))}
        </Alert>
      )}
      {record && hasExits && !recordShown.error && (
        <>
          <Typography variant="body2" color="text.secondary">
            {t('catalogue.layouts.record.hint', {
              document: record.document,
            })}
          </Typography>
          {!record.found && <Alert severity="warning">{t('catalogue.layouts.record.notFound')}</Alert>}
          <dl className="preview-values" data-testid="layout-record-values">
            {record.values.map(({ name, value }) => {
              const field = fieldOf(exitFields, name)
              return (
                <div key={name} data-testid="layout-record-value" data-name={name}>
                  <dt>{field ? `${field.label[lang] ?? name} (${name})` : name}</dt>
                  <dd className="mono">{value === '' ? '-' : value}</dd>
                </div>
              )
            })}
          </dl>
          {record.unknown.length > 0 && (
            <Alert severity="warning" data-testid="layout-record-unknown">
              {t('catalogue.layouts.record.unknown', {
                names: record.unknown.join(', '),
              })}
            </Alert>
          )}
          <ExitLine testId="layout-record-line">
            {record.header ? `${record.header}\n` : ''}
            {record.exitLine}
          </ExitLine>
        </>
      )}
    </PreviewSection>
  )
}

/** The live preview: a typed sample line read by the entry rows and written by the exit rows, by the server's code the batches use. */
export function LayoutSamplePreview({ request }: { request: LayoutRequest }) {
  const { t, i18n } = useTranslation()
  const [sample, setSample] = useState('')
  const [preview, previewed] = usePreviewLayoutMutation()
  useAskWhenTypingPauses(preview, sample ? { layoutPreviewRequest: { layout: request, sample } } : null)
  const shown = sample ? previewed.data?.data : undefined
  return (
    <PreviewSection label={t('catalogue.layouts.preview')} title={t('catalogue.layouts.sampleTitle')} dashed testId="layout-preview">
      <Typography variant="body2" color="text.secondary">
        {t('catalogue.layouts.previewHint')}
      </Typography>
      <TextInput label={t('catalogue.layouts.sample')} value={sample} maxLength={1000} onChange={setSample} testId="layout-sample" />
      {sample && previewed.error && (
        <Alert severity="error" role="alert" data-testid="layout-preview-error">
          {errorText(previewed.error, t, (k) => i18n.exists(k))}
        </Alert>
      )}
      {shown && !previewed.error && (
        <>
          <h3>{t('catalogue.layouts.values')}</h3>
          {Object.keys(shown.values).length === 0 ? (
            <p className="muted">{t('catalogue.layouts.noValues')}</p>
          ) : (
            <dl className="preview-values" data-testid="layout-preview-values">
              {Object.entries(shown.values).map(([name, value]) => (
                <div key={name}>
                  <dt>{name}</dt>
                  <dd className="mono">{value === '' ? '-' : value}</dd>
                </div>
              ))}
            </dl>
          )}
          <ExitLine testId="layout-preview-exit">{shown.exitLine}</ExitLine>
          <small className="muted">
            {t('catalogue.layouts.lineLength', {
              count: shown.exitLine.length,
            })}
          </small>
        </>
      )}
    </PreviewSection>
  )
}
