import { useState } from 'react'
import { useTranslation } from 'react-i18next'
import Alert from '@mui/material/Alert'
import Button from '@mui/material/Button'
import MenuItem from '@mui/material/MenuItem'
import Stack from '@mui/material/Stack'
import TextField from '@mui/material/TextField'
import Breadcrumbs from '../../components/Breadcrumbs'
import { foldPurpose } from '../../lib/purpose'
import { useQueryTypeName } from '../../lib/queryTypeName'
import { useListTokensQuery } from '../../store/generated/bemteviApi'
import CopyButton from './CopyButton'
import { lastIssued } from './issued'
import { asCurl, asJavaScript, asPython, lookupBody, type LookupCall } from './snippets'
import { callV1, type V1Answer } from './v1'

// Long tokens and JSON wrap instead of widening the page on a phone.
const WRAPPED = { whiteSpace: 'pre-wrap', overflowWrap: 'anywhere', maxWidth: '100%' } as const

export default function PlaygroundPage() {
  const { t } = useTranslation()
  const typeName = useQueryTypeName()
  const tokens = useListTokensQuery({}, { refetchOnMountOrArgChange: true })
  const active = (tokens.data?.data ?? []).filter((row) => row.status === 'active')
  const [tokenId, setTokenId] = useState('')
  const chosen = active.find((row) => row.id === tokenId) ?? active[0]
  const [accessToken, setAccessToken] = useState(() => lastIssued() ?? '')
  const [document, setDocument] = useState('')
  const [queryType, setQueryType] = useState('')
  const [idempotencyKey, setIdempotencyKey] = useState('')
  const [purpose, setPurpose] = useState('')
  const [answer, setAnswer] = useState<V1Answer | null>(null)
  const [sending, setSending] = useState(false)
  const call: LookupCall = {
    origin: window.location.origin,
    accessToken: accessToken.trim() || `${chosen?.accessKey ?? 'bk_…'}.<secret>`,
    document: document.trim(),
    queryType: queryType || undefined,
    purpose: foldPurpose(purpose) || undefined,
    idempotencyKey: idempotencyKey.trim() || undefined,
  }

  async function send() {
    setSending(true)
    try {
      const headers: Record<string, string> = { 'Content-Type': 'application/json' }
      if (call.idempotencyKey) headers['Idempotency-Key'] = call.idempotencyKey
      setAnswer(await callV1('/lookups', accessToken.trim(), { method: 'POST', headers, body: JSON.stringify(lookupBody(call)) }))
    } finally {
      setSending(false)
    }
  }

  const credits = (answer?.body as { data?: { credits?: number } } | undefined)?.data?.credits
  return (
    <div className="page" data-testid="playground">
      <Breadcrumbs items={[{ label: t('frame.crumbs.apiQuery') }, { label: t('frame.crumbs.playground') }]} />
      <h1>{t('api.play.title')}</h1>
      {tokens.data && active.length === 0 && <Alert severity="info">{t('api.play.noToken')}</Alert>}
      <section className="card">
        <Stack sx={{ gap: 2 }}>
          <TextField
            select
            label={t('api.play.token')}
            value={chosen?.id ?? ''}
            onChange={(e) => setTokenId(e.target.value)}
            slotProps={{ htmlInput: { 'data-testid': 'play-token' } }}
          >
            {active.map((row) => (
              <MenuItem key={row.id} value={row.id}>
                {row.name} ({row.accessKey})
              </MenuItem>
            ))}
          </TextField>
          <TextField
            label={t('api.accessToken')}
            type="password"
            helperText={t('api.play.tokenHint')}
            value={accessToken}
            onChange={(e) => setAccessToken(e.target.value)}
            slotProps={{ htmlInput: { 'data-testid': 'play-secret', autoComplete: 'off' } }}
          />
          <TextField
            select
            label={t('api.play.queryType')}
            value={queryType}
            onChange={(e) => setQueryType(e.target.value)}
            slotProps={{ htmlInput: { 'data-testid': 'play-query-type' } }}
          >
            <MenuItem value="">—</MenuItem>
            {(chosen?.queryTypes ?? []).map((key) => (
              <MenuItem key={key} value={key}>
                {typeName(key)} ({key})
              </MenuItem>
            ))}
          </TextField>
          <TextField
            label={t('api.play.document')}
            value={document}
            onChange={(e) => setDocument(e.target.value)}
            slotProps={{ htmlInput: { maxLength: 32, 'data-testid': 'play-document' } }}
          />
          <TextField
            label={t('purpose.labelOptional')}
            helperText={t('purpose.help')}
            value={purpose}
            onChange={(e) => setPurpose(e.target.value)}
            slotProps={{ htmlInput: { maxLength: 400, 'data-testid': 'play-purpose' } }}
          />
          <TextField
            label={t('api.play.idempotencyKey')}
            value={idempotencyKey}
            onChange={(e) => setIdempotencyKey(e.target.value)}
            slotProps={{ htmlInput: { maxLength: 255 } }}
          />
          <Button
            variant="contained"
            disabled={sending || !accessToken.trim() || !document.trim()}
            onClick={() => void send()}
            data-testid="play-send"
          >
            {sending ? t('api.play.sending') : t('api.play.send')}
          </Button>
        </Stack>
      </section>
      {answer && (
        <section className="card" data-testid="play-answer">
          <h2>
            {t('api.play.response')}: {answer.status} · {answer.ms} ms
          </h2>
          {credits !== undefined && <p data-testid="play-charge">{t('api.play.charge', { credits })}</p>}
          {answer.rateLimit && (
            <p>
              {t('api.play.rateLimit')}: <code style={WRAPPED}>{answer.rateLimit}</code>
            </p>
          )}
          <pre className="code-block" style={WRAPPED}>{JSON.stringify(answer.body, null, 2)}</pre>
        </section>
      )}
      <section className="card">
        <h2>{t('api.play.copyAs')}</h2>
        <Stack direction="row" sx={{ gap: 1, flexWrap: 'wrap' }}>
          <CopyButton text={asCurl(call)} label="curl" testId="play-copy-curl" />
          <CopyButton text={asPython(call)} label="Python" />
          <CopyButton text={asJavaScript(call)} label="JavaScript" />
        </Stack>
        <pre className="code-block" style={WRAPPED}>{asCurl(call)}</pre>
      </section>
    </div>
  )
}
