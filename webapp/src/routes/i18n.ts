/** The frame's texts (namespace `frame`): routes, layouts and shared feedback, pt-BR and en-US. */
export const framePtBR = {
  layout: {
    openMenu: 'Abrir menu',
    closeMenu: 'Fechar menu',
    copyright: '© {{year}} {{name}}. Todos os direitos reservados.',
    lgpd: 'Dados tratados conforme a LGPD.',
  },
  feedback: {
    confirmTitle: 'Confirmação',
    confirmText: 'Você tem certeza?',
    ok: 'OK',
    yes: 'Sim',
    no: 'Não',
    close: 'Fechar',
  },
  list: {
    filters: 'Filtros',
    exportCsv: 'Exportar CSV',
    retry: 'Tentar de novo',
    empty: 'Nenhum registro encontrado.',
    search: 'Buscar',
  },
  notAvailable: {
    title: 'Tela ainda não disponível',
    text: 'Esta tela ainda não está disponível nesta versão. As demais áreas do sistema continuam funcionando normalmente.',
    back: 'Voltar ao dashboard',
  },
  crumbs: {
    register: 'Cadastro',
    queries: 'Consultas',
    suppliers: 'Fornecedores',
    addSupplier: 'Fornecedor',
    layouts: 'Layouts',
    addLayout: 'Layout',
    queriesList: 'Lista de consultas',
    addQuery: 'Tipo de consulta',
    advancedQuery: 'Consulta avançada',
    advancedResults: 'Resultados',
    batchQuery: 'Em lote',
    reports: 'Aqui está seu relatório',
    apiQuery: 'Gerenciamento de API',
    playground: 'Playground',
  },
}

export type FrameTexts = typeof framePtBR

export const frameEnUS: FrameTexts = {
  layout: {
    openMenu: 'Open menu',
    closeMenu: 'Close menu',
    copyright: '© {{year}} {{name}}. All rights reserved.',
    lgpd: 'Data handled in compliance with the LGPD.',
  },
  feedback: {
    confirmTitle: 'Confirmation',
    confirmText: 'You are sure?',
    ok: 'OK',
    yes: 'Yes',
    no: 'No',
    close: 'Close',
  },
  list: {
    filters: 'Filters',
    exportCsv: 'Export CSV',
    retry: 'Try again',
    empty: 'No records found.',
    search: 'Search',
  },
  notAvailable: {
    title: 'Screen not available yet',
    text: 'This screen is not available in this version yet. The other areas of the system keep working as usual.',
    back: 'Back to the dashboard',
  },
  crumbs: {
    register: 'Registration',
    queries: 'Queries',
    suppliers: 'Suppliers',
    addSupplier: 'Supplier',
    layouts: 'Layouts',
    addLayout: 'Layout',
    queriesList: 'Consultation List',
    addQuery: 'Query type',
    advancedQuery: 'Advance Query',
    advancedResults: 'Results',
    batchQuery: 'In batch',
    reports: 'Here is your report',
    apiQuery: 'API Management',
    playground: 'Playground',
  },
}
