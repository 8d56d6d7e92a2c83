import type { CompanyResult, Consultation, PersonResult, RoleMenuEntry } from '../types/api'

export const person: PersonResult = {
  kind: 'person',
  cpf: '52998224725',
  name: 'Maria Aparecida da Silva',
  gender: 'F',
  birth_date: '1985-03-07',
  age: 40,
  sign: 'Peixes',
  mother: 'NULL',
  father: null,
  marital_status: '',
  education: 'Superior completo',
  profession: 'Analista',
  income: 4500.5,
  social_class: 'B',
  score: 0,
  phones: [{ number: '11987654321', type: 'mobile' }],
  emails: [],
  addresses: [
    { street: 'Rua das Flores', number: '10', complement: null, neighborhood: 'Centro', city: 'São Paulo', state: 'SP', zip: '01001000' },
  ],
  societies: [],
  protests: [],
  financial_pendings: [],
  check_inquiries: 0,
  death: null,
}

export const company: CompanyResult = {
  kind: 'company',
  cnpj: '11222333000181',
  company_name: 'Acme Comércio Ltda',
  trade_name: 'NULL',
  opening_date: '2001-05-20',
  status: 'ATIVA',
  legal_nature: 'Sociedade Empresária Limitada',
  main_activity: { code: '4711-3/02', description: 'Comércio varejista' },
  size: 'ME',
  share_capital: 100000,
  address: { street: 'Av. Paulista', number: '1000', complement: 'cj 1', neighborhood: 'Bela Vista', city: 'São Paulo', state: 'SP', zip: '01310100' },
  phones: [],
  emails: ['contato@acme.com.br'],
  partners: [{ name: 'João Souza', document: '52998224725', role: 'Sócio-Administrador', since: '2001-05-20' }],
  score: 700,
  protests: [],
}

export function consultationOf(result: PersonResult | CompanyResult): Consultation {
  return {
    id: 'c-1',
    document: result.kind === 'person' ? result.cpf : result.cnpj,
    documentType: result.kind === 'person' ? 'cpf' : 'cnpj',
    queryType: 'default',
    status: 'done',
    credits: 1,
    createdAt: '2024-06-01 15:30:00',
    result,
  }
}

export const roles: RoleMenuEntry[] = [
  { name: 'dashboard', label: 'menu.dashboard', icon: 'dashboard', route: '/dashboard', active_routes: ['dashboard'], children: [] },
  {
    name: 'queries',
    label: 'menu.queries',
    icon: 'search',
    route: null,
    active_routes: [],
    children: [
      { name: 'normal-query', label: 'menu.normalQuery', icon: 'person', route: '/normal-query', active_routes: ['normal-query', 'query-result'], children: [] },
    ],
  },
]

export const user = {
  id: '7',
  uniqueKey: 'u-7',
  groupId: '3',
  groupUniqueKey: 'g-3',
  name: 'Ana Maria Souza',
  email: 'ana@acme.com.br',
  role: 'admin',
  status: 'active',
}

export const group = {
  id: '3',
  uniqueKey: 'g-3',
  name: 'Acme',
  appTitle: 'acme consultas',
  domainUrl: 'localhost:3000',
  primaryColor: '#123456',
  secondaryColor: '#2BB32A',
  lighterColor: '#D5EFD4',
  horizontalLogo: null,
  iconogram: null,
  loginBanner: null,
  advancedQueryBanner: null,
}
