import type { ReactNode } from 'react'
import { useTranslation } from 'react-i18next'
import type { Address, CompanyResult, Consultation, PersonResult, Phone, Protest } from '../types/api'
import { display, formatDateTimeBR, formatMoney, MISSING_DATE, showDate } from '../lib/format'
import { formatCnpj, formatCpf, formatDocument, formatPhone, formatZip } from '../lib/documents'
import { translateValue } from '../lib/values'

/** A date of the result: '--' when missing, 'Invalid date' when unreadable (spec section 8's display rule). */
function useDate() {
  const { i18n } = useTranslation()
  return (value: string | null | undefined): string => {
    if (display(value) === '-') return MISSING_DATE
    return showDate(value, i18n.language)
  }
}

function Datum({ label, value, testId }: { label: string; value: ReactNode; testId?: string }) {
  return (
    <div className="field">
      <dt>{label}</dt>
      <dd data-testid={testId}>{typeof value === 'string' || value === null || value === undefined ? display(value) : value}</dd>
    </div>
  )
}

function Section({ title, children, testId }: { title: string; children: ReactNode; testId?: string }) {
  return (
    <section className="result-section card" data-testid={testId}>
      <h3>{title}</h3>
      {children}
    </section>
  )
}

function NothingOnRecord() {
  const { t } = useTranslation()
  return <p className="nothing-on-record">{t('result.nothingOnRecord')}</p>
}

interface Column<T> {
  label: string
  render: (row: T) => string
}

/** A table of rows, or 'Nada Consta' when the list is empty; wider than two columns, it stacks on a phone. */
function ListTable<T>({ rows, columns }: { rows: T[] | null | undefined; columns: Column<T>[] }) {
  if (!rows || rows.length === 0) return <NothingOnRecord />
  return (
    <div className="table-wrap">
      <table className={columns.length > 2 ? 'stack-on-phone' : undefined}>
        <thead>
          <tr>
            {columns.map((c) => (
              <th key={c.label} scope="col">
                {c.label}
              </th>
            ))}
          </tr>
        </thead>
        <tbody>
          {rows.map((row, i) => (
            <tr key={i}>
              {columns.map((c) => (
                <td key={c.label} data-label={c.label}>
                  {display(c.render(row))}
                </td>
              ))}
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  )
}

function usePhoneColumns(): Column<Phone>[] {
  const { t } = useTranslation()
  return [
    { label: t('result.phoneNumber'), render: (p) => formatPhone(p.number) },
    {
      label: t('result.phoneType'),
      render: (p) => (p.type === 'mobile' || p.type === 'landline' ? t(`result.phoneTypes.${p.type}`) : display(p.type)),
    },
  ]
}

function useAddressColumns(): Column<Address>[] {
  const { t } = useTranslation()
  return [
    { label: t('result.street'), render: (a) => display(a.street) },
    { label: t('result.number'), render: (a) => display(a.number) },
    { label: t('result.complement'), render: (a) => display(a.complement) },
    { label: t('result.neighborhood'), render: (a) => display(a.neighborhood) },
    { label: t('result.city'), render: (a) => display(a.city) },
    { label: t('result.state'), render: (a) => display(a.state) },
    { label: t('result.zip'), render: (a) => formatZip(a.zip) },
  ]
}

function useProtestColumns(): Column<Protest>[] {
  const { t, i18n } = useTranslation()
  const date = useDate()
  return [
    { label: t('result.date'), render: (p) => date(p.date) },
    { label: t('result.amount'), render: (p) => formatMoney(p.amount, i18n.language) },
    { label: t('result.notary'), render: (p) => display(p.notary) },
    { label: t('result.city'), render: (p) => display(p.city) },
    { label: t('result.state'), render: (p) => display(p.state) },
  ]
}

function EmailList({ emails }: { emails: string[] | null | undefined }) {
  const { t } = useTranslation()
  const list = (emails ?? []).filter((e) => display(e) !== '-')
  if (list.length === 0) return <NothingOnRecord />
  return <ListTable rows={list} columns={[{ label: t('result.email'), render: (e: string) => e }]} />
}

export function PersonResultView({ result }: { result: PersonResult }) {
  const { t, i18n } = useTranslation()
  const date = useDate()
  const phoneColumns = usePhoneColumns()
  const addressColumns = useAddressColumns()
  const protestColumns = useProtestColumns()
  const gender = result.gender === 'M' || result.gender === 'F' ? t(`result.genders.${result.gender}`) : display(result.gender)
  return (
    <>
      <Section title={t('result.person')} testId="result-person">
        <dl className="fields">
          <Datum label={t('result.name')} value={display(result.name)} testId="result-name" />
          <Datum label={t('result.cpf')} value={formatCpf(result.cpf)} testId="result-document" />
          <Datum label={t('result.gender')} value={gender} />
          <Datum label={t('result.birthDate')} value={date(result.birth_date)} testId="result-birth-date" />
          <Datum label={t('result.age')} value={display(result.age)} />
          <Datum label={t('result.sign')} value={display(translateValue('sign', result.sign, i18n.language))} />
          <Datum label={t('result.mother')} value={display(result.mother)} testId="result-mother" />
          <Datum label={t('result.father')} value={display(result.father)} testId="result-father" />
          <Datum label={t('result.maritalStatus')} value={display(translateValue('maritalStatus', result.marital_status, i18n.language))} />
          <Datum label={t('result.education')} value={display(translateValue('education', result.education, i18n.language))} />
          <Datum label={t('result.profession')} value={display(result.profession)} />
          <Datum label={t('result.income')} value={formatMoney(result.income, i18n.language)} />
          <Datum label={t('result.socialClass')} value={display(result.social_class)} />
          <Datum label={t('result.score')} value={display(result.score)} testId="result-score" />
        </dl>
      </Section>
      <Section title={t('result.phones')} testId="result-phones">
        <ListTable rows={result.phones} columns={phoneColumns} />
      </Section>
      <Section title={t('result.emails')} testId="result-emails">
        <EmailList emails={result.emails} />
      </Section>
      <Section title={t('result.addresses')} testId="result-addresses">
        <ListTable rows={result.addresses} columns={addressColumns} />
      </Section>
      <Section title={t('result.societies')} testId="result-societies">
        <ListTable
          rows={result.societies}
          columns={[
            { label: t('result.cnpj'), render: (s) => formatCnpj(s.cnpj) },
            { label: t('result.companyName'), render: (s) => display(s.company_name) },
            { label: t('result.role'), render: (s) => display(translateValue('partnerRole', s.role, i18n.language)) },
            { label: t('result.since'), render: (s) => date(s.since) },
          ]}
        />
      </Section>
      {result.protests !== undefined && (
        <Section title={t('result.protests')} testId="result-protests">
          <ListTable rows={result.protests} columns={protestColumns} />
        </Section>
      )}
      <Section title={t('result.financialPendings')} testId="result-financial-pendings">
        <ListTable
          rows={result.financial_pendings}
          columns={[
            { label: t('result.creditor'), render: (p) => display(p.creditor) },
            { label: t('result.amount'), render: (p) => formatMoney(p.amount, i18n.language) },
            { label: t('result.date'), render: (p) => date(p.date) },
          ]}
        />
      </Section>
      <Section title={t('result.checkInquiries')} testId="result-check-inquiries">
        {result.check_inquiries !== null && result.check_inquiries !== undefined ? (
          <dl className="fields">
            <Datum label={t('result.checkInquiriesCount')} value={display(result.check_inquiries)} />
          </dl>
        ) : (
          <NothingOnRecord />
        )}
      </Section>
      <Section title={t('result.death')} testId="result-death">
        {result.death ? (
          <dl className="fields">
            <Datum label={t('result.deathDate')} value={date(result.death.date)} />
            <Datum label={t('result.book')} value={display(result.death.book)} />
            <Datum label={t('result.sheet')} value={display(result.death.sheet)} />
            <Datum label={t('result.registryOffice')} value={display(result.death.registry_office)} />
          </dl>
        ) : (
          <NothingOnRecord />
        )}
      </Section>
    </>
  )
}

export function CompanyResultView({ result }: { result: CompanyResult }) {
  const { t, i18n } = useTranslation()
  const date = useDate()
  const phoneColumns = usePhoneColumns()
  const addressColumns = useAddressColumns()
  const protestColumns = useProtestColumns()
  const activity = result.main_activity
  const activityText =
    activity && (display(activity.code) !== '-' || display(activity.description) !== '-')
      ? [activity.code, activity.description].filter((v) => display(v) !== '-').join(' - ')
      : '-'
  return (
    <>
      <Section title={t('result.company')} testId="result-company">
        <dl className="fields">
          <Datum label={t('result.companyName')} value={display(result.company_name)} testId="result-name" />
          <Datum label={t('result.cnpj')} value={formatCnpj(result.cnpj)} testId="result-document" />
          <Datum label={t('result.tradeName')} value={display(result.trade_name)} />
          <Datum label={t('result.openingDate')} value={date(result.opening_date)} />
          <Datum label={t('result.status')} value={display(translateValue('companyStatus', result.status, i18n.language))} />
          <Datum label={t('result.legalNature')} value={display(result.legal_nature)} />
          <Datum label={t('result.mainActivity')} value={activityText} />
          <Datum label={t('result.size')} value={display(translateValue('companySize', result.size, i18n.language))} />
          <Datum label={t('result.shareCapital')} value={formatMoney(result.share_capital, i18n.language)} />
          <Datum label={t('result.score')} value={display(result.score)} testId="result-score" />
        </dl>
      </Section>
      <Section title={t('result.address')} testId="result-addresses">
        <ListTable rows={result.address ? [result.address] : []} columns={addressColumns} />
      </Section>
      <Section title={t('result.phones')} testId="result-phones">
        <ListTable rows={result.phones} columns={phoneColumns} />
      </Section>
      <Section title={t('result.emails')} testId="result-emails">
        <EmailList emails={result.emails} />
      </Section>
      <Section title={t('result.partners')} testId="result-partners">
        <ListTable
          rows={result.partners}
          columns={[
            { label: t('result.name'), render: (p) => display(p.name) },
            { label: t('result.document'), render: (p) => formatDocument(p.document) },
            { label: t('result.role'), render: (p) => display(translateValue('partnerRole', p.role, i18n.language)) },
            { label: t('result.since'), render: (p) => date(p.since) },
          ]}
        />
      </Section>
      {result.protests !== undefined && (
        <Section title={t('result.protests')} testId="result-protests">
          <ListTable rows={result.protests} columns={protestColumns} />
        </Section>
      )}
    </>
  )
}

/**
 * A consultation without a result: a valid document no source holds ('not_found'), or a source
 * that failed; neither is charged.
 */
function NoResult({ consultation }: { consultation: Consultation }) {
  const { t } = useTranslation()
  const what = { documentType: t(`result.${consultation.documentType}`), document: formatDocument(consultation.document) }
  return (
    <div className="alert alert-info" role="status" data-testid="query-not-found" data-status={consultation.status}>
      <strong>{consultation.status === 'failed' ? t('errors.search_failed') : t('query.notFound', what)}</strong>
      <span>{t('query.notCharged')}</span>
    </div>
  )
}

/** Result of one unit query (person or company), or what to say when it has none. */
export default function ResultView({ consultation }: { consultation: Consultation }) {
  const { t, i18n } = useTranslation()
  const queriedAt = formatDateTimeBR(consultation.createdAt, i18n.language)
  const { result } = consultation
  if (!result) return <NoResult consultation={consultation} />
  return (
    <div className="result" data-testid="query-result" data-document-type={consultation.documentType}>
      {queriedAt && queriedAt !== '--' && <p className="muted">{t('query.queriedAt', { date: queriedAt })}</p>}
      {result.kind === 'company' ? <CompanyResultView result={result} /> : <PersonResultView result={result} />}
    </div>
  )
}
