/**
 * Value translations of the data's enumerations. The sources write them in Portuguese; pt-BR shows
 * them as they are, en-US shows the English word (a value not listed stays as the source wrote it).
 */
export type ValueKind = 'maritalStatus' | 'sign' | 'education' | 'companyStatus' | 'companySize' | 'partnerRole'

const EN_US: Record<ValueKind, Record<string, string>> = {
  maritalStatus: {
    solteiro: 'Single',
    solteira: 'Single',
    casado: 'Married',
    casada: 'Married',
    divorciado: 'Divorced',
    divorciada: 'Divorced',
    separado: 'Separated',
    separada: 'Separated',
    viuvo: 'Widowed',
    viuva: 'Widowed',
    'uniao estavel': 'Common-law marriage',
  },
  sign: {
    aries: 'Aries',
    touro: 'Taurus',
    gemeos: 'Gemini',
    cancer: 'Cancer',
    leao: 'Leo',
    virgem: 'Virgo',
    libra: 'Libra',
    escorpiao: 'Scorpio',
    sagitario: 'Sagittarius',
    capricornio: 'Capricorn',
    aquario: 'Aquarius',
    peixes: 'Pisces',
  },
  education: {
    'fundamental incompleto': 'Primary school, incomplete',
    'fundamental completo': 'Primary school',
    'medio incompleto': 'High school, incomplete',
    'medio completo': 'High school',
    'superior incompleto': 'College, incomplete',
    'superior completo': 'College degree',
    'pos-graduacao': 'Postgraduate',
    mestrado: "Master's degree",
    doutorado: 'Doctorate',
  },
  companyStatus: { ativa: 'Active', baixada: 'Closed', inapta: 'Unfit', suspensa: 'Suspended', nula: 'Void' },
  companySize: { me: 'Micro-enterprise (ME)', epp: 'Small business (EPP)', demais: 'Other' },
  partnerRole: {
    'socio-administrador': 'Managing partner',
    socio: 'Partner',
    titular: 'Owner',
    presidente: 'President',
    diretor: 'Director',
    administrador: 'Administrator',
  },
}

/** "Gêmeos " -> "gemeos": lower case, no accents, single spaces. */
function key(value: string): string {
  return value.normalize('NFD').replace(/\p{M}/gu, '').trim().replace(/\s+/g, ' ').toLowerCase()
}

/** The value in the user's language: as written in pt-BR, the English word in en-US when there is one. */
export function translateValue(kind: ValueKind, value: string | null | undefined, locale: string): string | null | undefined {
  if (value === null || value === undefined || locale !== 'en-US') return value
  return EN_US[kind][key(value)] ?? value
}

/** How many values each kind translates (for the tests). */
export function translatedValues(kind: ValueKind): string[] {
  return Object.keys(EN_US[kind])
}
