export interface LogoSpec {
  name: string
  shape: 'leaf' | 'check' | 'grain' | 'atlas' | 'wave' | 'nexo'
}

/** Fictional customers: invented names and marks, for illustration. */
export const CUSTOMER_LOGOS: LogoSpec[] = [
  { name: 'Vale Norte', shape: 'leaf' },
  { name: 'Ponto Certo', shape: 'check' },
  { name: 'Grão Fino', shape: 'grain' },
  { name: 'Atlas Crédito', shape: 'atlas' },
  { name: 'Ribeira Seguros', shape: 'wave' },
  { name: 'Nexo Telecom', shape: 'nexo' },
]
