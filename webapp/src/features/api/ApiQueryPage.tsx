import { useEffect, useState } from 'react'
import { useTranslation } from 'react-i18next'
import { Link } from 'react-router'
import Alert from '@mui/material/Alert'
import Box from '@mui/material/Box'
import Button from '@mui/material/Button'
import Checkbox from '@mui/material/Checkbox'
import Chip from '@mui/material/Chip'
import Dialog from '@mui/material/Dialog'
import DialogActions from '@mui/material/DialogActions'
import DialogContent from '@mui/material/DialogContent'
import DialogTitle from '@mui/material/DialogTitle'
import FormControlLabel from '@mui/material/FormControlLabel'
import Stack from '@mui/material/Stack'
import Table from '@mui/material/Table'
import TableBody from '@mui/material/TableBody'
import TableCell from '@mui/material/TableCell'
import TableHead from '@mui/material/TableHead'
import TableRow from '@mui/material/TableRow'
import TextField from '@mui/material/TextField'
import Breadcrumbs from '../../components/Breadcrumbs'
import { errorText } from '../../components/errorText'
import { useConfirm, useNotify } from '../../components/feedback'
import { showDateTime } from '../../lib/format'
import { useQueryTypeDescription, useQueryTypeName } from '../../lib/queryTypeName'
import {
  useActivateTokenMutation,
  useEnabledQueryTypesQuery,
  useGenerateTokenMutation,
  useInactivateTokenMutation,
  useListTokensQuery,
  useRegenerateTokenMutation,
  type ApiTokenRow,
  type IssuedTokenResponse,
} from '../../store/generated/bemteviApi'
import CopyButton from './CopyButton'
import { rememberIssued } from './issued'
import { operationsOf, V1_BASE, type V1Operation } from './v1'

export default function ApiQueryPage() {
  const { t, i18n } = useTranslation()
  const typeName = useQueryTypeName()
  const typeDescription = useQueryTypeDescription()
  const lang = i18n.language
  const [position, setPosition] = useState<number | undefined>(undefined)
  const tokens = useListTokensQuery({ position }, { refetchOnMountOrArgChange: true })
  const types = useEnabledQueryTypesQuery({})
  const [generate, generating] = useGenerateTokenMutation()
  const [regenerate] = useRegenerateTokenMutation()
  const [activate] = useActivateTokenMutation()
  const [inactivate] = useInactivateTokenMutation()
  const confirm = useConfirm()
  const notify = useNotify()
  const [creating, setCreating] = useState(false)
  const [issued, setIssued] = useState<IssuedTokenResponse | null>(null)
  const [operations, setOperations] = useState<V1Operation[]>([])
  const failed = (error: unknown) =>
    notify({ type: 'negative', message: errorText(error as never, t, (k) => i18n.exists(k)) })

  useEffect(() => {
    void fetch(`${V1_BASE}/openapi.json`)
      .then((r) => r.json())
      .then((schema) => setOperations(operationsOf(schema)))
      .catch(() => setOperations([]))
  }, [])

  // An operation's texts: pt-BR from the feature's words by operationId; en-US (and an operation with no words
  // yet) as the schema says it.
  const operationText = (op: V1Operation, part: 'summary' | 'description') =>
    t(`api.operations.${op.id}.${part}`, { defaultValue: op[part] })

  const shown = (answer: IssuedTokenResponse) => {
    rememberIssued(answer.accessToken)
    setIssued(answer)
    setPosition(answer.position)
  }

  async function toggle(row: ApiTokenRow) {
    const activating = row.status !== 'active'
    if (!activating && !(await confirm({ message: t('api.confirmInactivate', { name: row.name }), variant: 'yesNo' }))) return
    const result = await (activating ? activate({ tokenId: row.id }) : inactivate({ tokenId: row.id }))
    if ('error' in result) return failed(result.error)
    notify({ type: 'positive', message: t(activating ? 'api.activated' : 'api.inactivated') })
    setPosition(result.data.position)
  }

  async function again(row: ApiTokenRow) {
    if (!(await confirm({ message: t('api.confirmRegenerate', { name: row.name }), variant: 'yesNo' }))) return
    const result = await regenerate({ tokenId: row.id })
    if ('error' in result) return failed(result.error)
    shown(result.data)
  }

  const ceiling = tokens.data?.limits
  return (
    <div className="page" data-testid="api-query">
      <Breadcrumbs items={[{ label: t('frame.crumbs.apiQuery') }]} />
      <Stack direction="row" sx={{ justifyContent: 'space-between', alignItems: 'center', mb: 2, gap: 1, flexWrap: 'wrap' }}>
        <h1>{t('api.title')}</h1>
        <Stack direction="row" sx={{ gap: 1 }}>
          <Button variant="outlined" component={Link} to="/playground">
            {t('api.playground')}
          </Button>
          <Button variant="contained" onClick={() => setCreating(true)} data-testid="token-new">
            {t('api.newToken')}
          </Button>
        </Stack>
      </Stack>

      <section className="card">
        <h2>{t('api.tokens')}</h2>
        {tokens.isError && <Alert severity="error">{errorText(tokens.error as never, t, (k) => i18n.exists(k))}</Alert>}
        {tokens.data && tokens.data.data.length === 0 && <p>{t('api.empty')}</p>}
        {tokens.data && tokens.data.data.length > 0 && (
          <Box sx={{ overflowX: 'auto' }}>
            <Table size="small" className="stack-on-phone" data-testid="token-table">
            <TableHead>
              <TableRow>
                <TableCell>{t('api.name')}</TableCell>
                <TableCell>{t('api.accessKey')}</TableCell>
                <TableCell>{t('api.status')}</TableCell>
                <TableCell>{t('api.queryTypes')}</TableCell>
                <TableCell>{t('api.limits')}</TableCell>
                <TableCell>{t('api.usage')}</TableCell>
                <TableCell>{t('api.lastUsed')}</TableCell>
                <TableCell>{t('api.createdBy')}</TableCell>
                <TableCell>{t('api.actions')}</TableCell>
              </TableRow>
            </TableHead>
            <TableBody>
              {tokens.data.data.map((row) => (
                <TableRow key={row.id} data-testid="token-row">
                  <TableCell data-label={t('api.name')}>{row.name}</TableCell>
                  <TableCell data-label={t('api.accessKey')}>
                    <code>{row.accessKey}</code>
                  </TableCell>
                  <TableCell data-label={t('api.status')}>
                    <Chip
                      size="small"
                      color={row.status === 'active' ? 'success' : 'default'}
                      label={row.status === 'active' ? t('api.active') : t('api.inactive')}
                      data-testid="token-status"
                    />
                  </TableCell>
                  <TableCell data-label={t('api.queryTypes')}>{row.queryTypes.map((key) => typeName(key, types.data?.data.find((q) => q.key === key)?.name)).join(', ')}</TableCell>
                  <TableCell data-label={t('api.limits')}>
                    {row.limits.perSecond ?? '—'}/s · {row.limits.perDay ?? '—'}/d
                  </TableCell>
                  <TableCell data-label={t('api.usage')}>
                    {row.usedToday} / {row.used30Days}
                  </TableCell>
                  <TableCell data-label={t('api.lastUsed')}>{row.lastUsedAt ? showDateTime(row.lastUsedAt, lang) : t('api.never')}</TableCell>
                  <TableCell data-label={t('api.createdBy')}>{row.createdByName ?? '—'}</TableCell>
                  <TableCell data-label={t('api.actions')}>
                    <Stack direction="row" sx={{ gap: 1, flexWrap: 'wrap' }}>
                      <Button size="small" variant="outlined" onClick={() => void again(row)} data-testid="token-regenerate">
                        {t('api.regenerate')}
                      </Button>
                      <Button size="small" variant="outlined" onClick={() => void toggle(row)} data-testid="token-toggle">
                        {row.status === 'active' ? t('api.inactivate') : t('api.activate')}
                      </Button>
                    </Stack>
                  </TableCell>
                </TableRow>
              ))}
            </TableBody>
            </Table>
          </Box>
        )}
      </section>

      <section className="card">
        <h2>{t('api.available')}</h2>
        <ul data-testid="token-query-types" style={{ overflowWrap: 'anywhere' }}>
          {(types.data?.data ?? []).map((type) => (
            <li key={type.key}>
              <strong>{typeName(type.key, type.name)}</strong> (<code>{type.key}</code>) — {typeDescription(type.key, type.description)}
            </li>
          ))}
        </ul>
      </section>

      <section className="card">
        <h2>{t('api.docs')}</h2>
        <p style={{ overflowWrap: 'anywhere' }}>{t('api.docsIntro')}</p>
        <Box sx={{ overflowX: 'auto' }}>
          <Table size="small" className="stack-on-phone" data-testid="api-docs">
          <TableBody>
            {operations.map((op) => (
              <TableRow key={`${op.method} ${op.path}`}>
                <TableCell>
                  <code>{op.method}</code>
                </TableCell>
                <TableCell>
                  <code>{op.path}</code>
                </TableCell>
                <TableCell>
                  <strong>{operationText(op, 'summary')}</strong> {withCode(operationText(op, 'description'))}
                </TableCell>
              </TableRow>
            ))}
          </TableBody>
          </Table>
        </Box>
        <a href={`${V1_BASE}/openapi.json`} target="_blank" rel="noreferrer">
          {t('api.schema')}
        </a>
      </section>

      {creating && (
        <NewTokenDialog
          types={(types.data?.data ?? []).map((type) => ({ key: type.key, name: typeName(type.key, type.name) }))}
          hint={t('api.limitsHint', { perSecond: ceiling?.perSecond ?? '—', perDay: ceiling?.perDay ?? '—' })}
          busy={generating.isLoading}
          onCancel={() => setCreating(false)}
          onSubmit={async (form) => {
            const result = await generate({ apiTokenForm: form })
            if ('error' in result) return failed(result.error)
            setCreating(false)
            shown(result.data)
          }}
        />
      )}

      <Dialog open={issued !== null} data-testid="token-secret">
        <DialogTitle>{t('api.secretTitle')}</DialogTitle>
        <DialogContent>
          <Alert severity="warning" sx={{ mb: 2 }}>
            {t('api.secretText')}
          </Alert>
          <p>
            {t('api.accessKey')}: <code>{issued?.accessKey}</code>
          </p>
          <TextField
            label={t('api.accessToken')}
            value={issued?.accessToken ?? ''}
            fullWidth
            slotProps={{ htmlInput: { readOnly: true, 'data-testid': 'token-secret-value' } }}
          />
        </DialogContent>
        <DialogActions>
          <CopyButton text={issued?.accessToken ?? ''} testId="token-copy" />
          <Button variant="contained" onClick={() => setIssued(null)} data-testid="token-secret-close">
            {t('api.close')}
          </Button>
        </DialogActions>
      </Dialog>
    </div>
  )
}

interface TokenFormValues {
  name: string
  queryTypes: string[]
  limits: { perSecond?: number | null; perDay?: number | null }
}

function NewTokenDialog(props: {
  types: { key: string; name: string }[]
  hint: string
  busy: boolean
  onCancel: () => void
  onSubmit: (form: TokenFormValues) => Promise<void>
}) {
  const { t } = useTranslation()
  const [name, setName] = useState('')
  const [chosen, setChosen] = useState<string[]>([])
  const [perSecond, setPerSecond] = useState('')
  const [perDay, setPerDay] = useState('')
  const [tried, setTried] = useState(false)
  const nameError = tried && !name.trim() ? t('api.errors.name') : ''
  const typesError = tried && chosen.length === 0 ? t('api.errors.queryTypes') : ''
  const number = (value: string) => (value.trim() ? Number(value) : null)
  return (
    <Dialog open onClose={props.onCancel} fullWidth data-testid="token-form">
      <DialogTitle>{t('api.newToken')}</DialogTitle>
      <DialogContent>
        <Stack sx={{ gap: 2, pt: 1 }}>
          <TextField
            label={t('api.name')}
            value={name}
            onChange={(e) => setName(e.target.value)}
            error={!!nameError}
            helperText={nameError}
            slotProps={{ htmlInput: { maxLength: 80, 'data-testid': 'token-name' } }}
          />
          <div>
            <strong>{t('api.queryTypes')}</strong>
            {props.types.map((type) => (
              <FormControlLabel
                key={type.key}
                label={type.name}
                control={
                  <Checkbox
                    checked={chosen.includes(type.key)}
                    onChange={(e) =>
                      setChosen(e.target.checked ? [...chosen, type.key] : chosen.filter((k) => k !== type.key))
                    }
                    slotProps={{ input: { 'data-testid': `token-type-${type.key}` } as never }}
                  />
                }
              />
            ))}
            {typesError && <Alert severity="error">{typesError}</Alert>}
          </div>
          <Stack direction="row" sx={{ gap: 2 }}>
            <TextField label={t('api.perSecond')} type="number" value={perSecond} onChange={(e) => setPerSecond(e.target.value)} />
            <TextField label={t('api.perDay')} type="number" value={perDay} onChange={(e) => setPerDay(e.target.value)} />
          </Stack>
          <small>{props.hint}</small>
        </Stack>
      </DialogContent>
      <DialogActions>
        <Button onClick={props.onCancel}>{t('api.cancel')}</Button>
        <Button
          variant="contained"
          disabled={props.busy}
          data-testid="token-generate"
          onClick={() => {
            setTried(true)
            if (!name.trim() || chosen.length === 0) return
            void props.onSubmit({ name: name.trim(), queryTypes: chosen, limits: { perSecond: number(perSecond), perDay: number(perDay) } })
          }}
        >
          {t('api.generate')}
        </Button>
      </DialogActions>
    </Dialog>
  )
}

/** A description's `quoted` parts (the schema's Markdown for code) as code, the rest as text. */
function withCode(text: string) {
  return text.split('`').map((part, n) => (n % 2 ? <code key={n}>{part}</code> : part))
}
