/**
 * Terms of use and privacy policy (namespace `public.legalText`), pt-BR and en-US. Loaded only with
 * the legal pages' chunk and added to i18n there, so the rest of the app does not carry them.
 */
interface Section {
  title: string
  paragraphs: string[]
}

interface LegalDoc {
  title: string
  lead: string
  updated: string
  sections: Section[]
}

const UPDATED = '2026-01-15'

export const legalPtBR: { terms: LegalDoc; privacy: LegalDoc } = {
  terms: {
    title: 'Termos de uso',
    lead: 'As regras para usar o site, o sistema online e a API. Leia com atenção: ao criar uma conta ou usar os serviços, você concorda com elas.',
    updated: UPDATED,
    sections: [
      {
        title: '1. Quem somos e o que estes termos cobrem',
        paragraphs: [
          'Estes termos regem o uso do site público, do sistema online (inclusive quando oferecido sob a marca de um parceiro, no modelo white label) e da API de consultas e enriquecimento de dados.',
          'Os serviços são destinados a pessoas jurídicas e a profissionais que os utilizem no exercício de atividade econômica. Não são oferecidos a consumidores para fins pessoais.',
        ],
      },
      {
        title: '2. Conta, usuários e credenciais',
        paragraphs: [
          'A empresa contratante é responsável pelos usuários que cadastra, pelos perfis e permissões que atribui e por manter esses cadastros atualizados.',
          'Senhas, códigos de verificação e tokens de API são pessoais e intransferíveis. Em caso de suspeita de uso indevido, altere a senha, revogue o token e avise-nos imediatamente.',
        ],
      },
      {
        title: '3. Uso permitido dos dados',
        paragraphs: [
          'As consultas só podem ser feitas com uma finalidade legítima e compatível com a Lei Geral de Proteção de Dados (Lei nº 13.709/2018), como análise de crédito, prevenção a fraudes, cobrança, cumprimento de obrigações legais ou prospecção de empresas.',
          'É proibido usar os dados para discriminação ilícita ou abusiva, para revenda não autorizada, para assédio, ou para qualquer finalidade contrária à lei, à ordem pública ou a estes termos.',
          'Cada consulta fica registrada com o usuário, a empresa, o documento consultado, a data e a hora. Esses registros podem ser apresentados a autoridades e aos titulares, quando a lei exigir.',
        ],
      },
      {
        title: '4. Créditos, saldos e cobrança',
        paragraphs: [
          'As consultas consomem créditos por categoria (unitária, avançada, lote e API), conforme o contrato. Uma consulta sem resultado não consome crédito; consultas já realizadas não são estornadas.',
          'Lotes em processamento podem ser cancelados pelo responsável da conta. Um processamento que exceda uma hora é encerrado pelo sistema e os créditos reservados e não usados são devolvidos.',
        ],
      },
      {
        title: '5. Disponibilidade e suporte',
        paragraphs: [
          'Trabalhamos para manter os serviços disponíveis de forma contínua, mas pode haver interrupções para manutenção, por falhas de terceiros ou por motivos de força maior. Sempre que possível, manutenções programadas serão avisadas com antecedência.',
          'As informações vêm de fontes públicas e de parceiros licenciados e são atualizadas periodicamente. Não garantimos que estejam completas ou livres de erro em todos os casos: confirme dados relevantes antes de decisões definitivas.',
        ],
      },
      {
        title: '6. Propriedade intelectual',
        paragraphs: [
          'O sistema, a API, os layouts, as marcas e os conteúdos do site pertencem a nós ou aos nossos licenciantes. O contrato concede uma licença de uso limitada, não exclusiva e intransferível, pelo prazo de vigência.',
        ],
      },
      {
        title: '7. Suspensão e encerramento',
        paragraphs: [
          'Podemos suspender usuários ou contas em caso de uso contrário a estes termos, de risco à segurança ou de inadimplência, comunicando o motivo. O contratante pode encerrar a conta a qualquer momento, nos termos do contrato.',
        ],
      },
      {
        title: '8. Alterações, lei aplicável e contato',
        paragraphs: [
          'Estes termos podem ser atualizados; a data da última versão aparece no topo desta página e mudanças relevantes serão comunicadas aos clientes.',
          'Aplica-se a legislação brasileira. Dúvidas sobre estes termos podem ser enviadas pela página de Contato.',
        ],
      },
    ],
  },
  privacy: {
    title: 'Política de privacidade',
    lead: 'Como tratamos dados pessoais, com que finalidade e base legal, por quanto tempo e como você exerce os seus direitos, conforme a LGPD.',
    updated: UPDATED,
    sections: [
      {
        title: '1. Controlador e encarregado',
        paragraphs: [
          'Somos controladores dos dados que tratamos para operar o site, o sistema e a nossa base de informações. Quando um cliente usa o sistema para as suas próprias finalidades, ele é o controlador dessas consultas e nós atuamos como operador.',
          'Nosso encarregado pelo tratamento de dados pessoais (DPO) pode ser contatado pela página de Contato, escolhendo qualquer assunto e mencionando "LGPD" na mensagem.',
        ],
      },
      {
        title: '2. Quais dados tratamos',
        paragraphs: [
          'Do site: os dados que você informa no formulário de contato (nome, CPF ou CNPJ, e-mail, telefone, assunto e mensagem) e o endereço do site de onde ele foi enviado.',
          'Dos usuários do sistema: nome, e-mail, telefone, perfil de acesso, registros de acesso e o histórico de consultas realizadas.',
          'Da base de informações: dados cadastrais de pessoas e empresas obtidos de fontes públicas e de parceiros licenciados, como nome, documento, endereços, telefones e vínculos societários.',
        ],
      },
      {
        title: '3. Finalidades e bases legais',
        paragraphs: [
          'Responder a contatos e pedidos de teste: procedimentos preliminares de contrato, a pedido do titular (art. 7º, V).',
          'Prestar os serviços contratados e manter a segurança das contas: execução de contrato e legítimo interesse (art. 7º, V e IX).',
          'Oferecer consultas para análise de crédito, prevenção a fraudes e cobrança: proteção do crédito e legítimo interesse, sempre com avaliação de impacto e respeito às expectativas dos titulares (art. 7º, IX e X).',
          'Guardar registros de acesso e de consultas: cumprimento de obrigação legal e exercício regular de direitos (art. 7º, II e VI).',
        ],
      },
      {
        title: '4. Compartilhamento',
        paragraphs: [
          'Compartilhamos dados apenas com clientes que têm finalidade legítima para a consulta, com prestadores que nos ajudam a operar (hospedagem, envio de e-mail e SMS), sob contrato e confidencialidade, e com autoridades, quando a lei exigir.',
          'Não vendemos os dados enviados pelo formulário de contato.',
        ],
      },
      {
        title: '5. Retenção',
        paragraphs: [
          'Mensagens de contato são guardadas por até 2 anos após o último contato. Registros de acesso são guardados por no mínimo 6 meses, conforme o Marco Civil da Internet, e registros de consulta pelo prazo necessário à defesa de direitos.',
        ],
      },
      {
        title: '6. Segurança',
        paragraphs: [
          'Adotamos medidas técnicas e administrativas para proteger os dados: comunicação criptografada, senhas armazenadas com hash forte, tokens de API revogáveis, controle de acesso por perfil e trilha de auditoria de cada consulta.',
        ],
      },
      {
        title: '7. Seus direitos',
        paragraphs: [
          'Você pode pedir confirmação de tratamento, acesso, correção, anonimização, bloqueio ou eliminação de dados desnecessários, portabilidade, informação sobre compartilhamento e revisão de decisões automatizadas, além de se opor a tratamentos baseados em legítimo interesse.',
          'Para exercer esses direitos, escreva pela página de Contato. Podemos pedir uma confirmação de identidade para proteger os seus dados. Você também pode apresentar reclamação à Autoridade Nacional de Proteção de Dados (ANPD).',
        ],
      },
      {
        title: '8. Cookies e armazenamento local',
        paragraphs: [
          'O site não usa cookies de publicidade. O navegador guarda apenas o idioma escolhido e, para quem entra no sistema, a sessão de acesso, que é apagada ao sair.',
        ],
      },
    ],
  },
}

export const legalEnUS: typeof legalPtBR = {
  terms: {
    title: 'Terms of Use',
    lead: 'The rules for using the website, the online system and the API. Please read them carefully: by creating an account or using the services you agree to them.',
    updated: UPDATED,
    sections: [
      {
        title: '1. Who we are and what these terms cover',
        paragraphs: [
          'These terms govern the use of the public website, the online system (including when it is offered under a partner’s brand, as a white label) and the data lookup and enrichment API.',
          'The services are meant for companies and for professionals using them in the course of business. They are not offered to consumers for personal purposes.',
        ],
      },
      {
        title: '2. Account, users and credentials',
        paragraphs: [
          'The contracting company is responsible for the users it registers, the roles and permissions it grants, and for keeping those records up to date.',
          'Passwords, verification codes and API tokens are personal and may not be shared. If you suspect misuse, change the password, revoke the token and tell us immediately.',
        ],
      },
      {
        title: '3. Permitted use of the data',
        paragraphs: [
          'Lookups may only be made for a legitimate purpose compatible with Brazil’s General Data Protection Law (LGPD, Law 13,709/2018), such as credit analysis, fraud prevention, debt collection, legal compliance or business prospecting.',
          'Using the data for unlawful or abusive discrimination, unauthorised resale, harassment, or any purpose contrary to law, public order or these terms is forbidden.',
          'Every lookup is recorded with the user, the company, the document looked up, the date and the time. These records may be shown to authorities and to data subjects when the law requires it.',
        ],
      },
      {
        title: '4. Credits, balances and billing',
        paragraphs: [
          'Lookups use credits per category (unit, advanced, batch and API), as set in the contract. A lookup that finds nothing uses no credit; lookups already made are not refunded.',
          'Batches being processed may be cancelled by the account holder. Processing that exceeds one hour is stopped by the system and reserved, unused credits are returned.',
        ],
      },
      {
        title: '5. Availability and support',
        paragraphs: [
          'We work to keep the services available at all times, but there may be interruptions for maintenance, third-party failures or force majeure. Planned maintenance is announced in advance whenever possible.',
          'The information comes from public sources and licensed partners and is refreshed periodically. We do not warrant that it is complete or error-free in every case: confirm relevant data before final decisions.',
        ],
      },
      {
        title: '6. Intellectual property',
        paragraphs: [
          'The system, the API, the layouts, the brands and the website’s content belong to us or our licensors. The contract grants a limited, non-exclusive, non-transferable licence for its term.',
        ],
      },
      {
        title: '7. Suspension and termination',
        paragraphs: [
          'We may suspend users or accounts for use contrary to these terms, security risk or non-payment, stating the reason. The customer may close the account at any time, under the contract.',
        ],
      },
      {
        title: '8. Changes, governing law and contact',
        paragraphs: [
          'These terms may be updated; the date of the latest version is shown at the top of this page and relevant changes are communicated to customers.',
          'Brazilian law applies. Questions about these terms can be sent through the Contact page.',
        ],
      },
    ],
  },
  privacy: {
    title: 'Privacy Policy',
    lead: 'How we process personal data, for what purpose and on which legal basis, for how long, and how you exercise your rights under the LGPD.',
    updated: UPDATED,
    sections: [
      {
        title: '1. Controller and data protection officer',
        paragraphs: [
          'We are the controller of the data we process to run the website, the system and our information base. When a customer uses the system for its own purposes, that customer is the controller of those lookups and we act as processor.',
          'Our data protection officer (DPO) can be reached through the Contact page: choose any subject and mention "LGPD" in the message.',
        ],
      },
      {
        title: '2. What data we process',
        paragraphs: [
          'From the website: what you enter in the contact form (name, CPF or CNPJ, e-mail, phone, subject and message) and the address of the site it was sent from.',
          'From users of the system: name, e-mail, phone, access role, access logs and the history of lookups made.',
          'In the information base: registration data on people and companies from public sources and licensed partners, such as name, document, addresses, phones and company relationships.',
        ],
      },
      {
        title: '3. Purposes and legal bases',
        paragraphs: [
          'Answering contacts and trial requests: steps prior to a contract, at the data subject’s request (art. 7, V).',
          'Providing the contracted services and keeping accounts secure: performance of contract and legitimate interest (art. 7, V and IX).',
          'Offering lookups for credit analysis, fraud prevention and collection: credit protection and legitimate interest, always with an impact assessment and respect for data subjects’ expectations (art. 7, IX and X).',
          'Keeping access and lookup records: legal obligation and the regular exercise of rights (art. 7, II and VI).',
        ],
      },
      {
        title: '4. Sharing',
        paragraphs: [
          'We share data only with customers who have a legitimate purpose for the lookup, with providers who help us operate (hosting, e-mail and SMS delivery) under contract and confidentiality, and with authorities when the law requires it.',
          'We do not sell the data sent through the contact form.',
        ],
      },
      {
        title: '5. Retention',
        paragraphs: [
          'Contact messages are kept for up to 2 years after the last contact. Access logs are kept for at least 6 months, as Brazil’s Internet Civil Framework requires, and lookup records for as long as needed to defend rights.',
        ],
      },
      {
        title: '6. Security',
        paragraphs: [
          'We take technical and organisational measures to protect the data: encrypted connections, passwords stored with a strong hash, revocable API tokens, role-based access control and an audit trail of every lookup.',
        ],
      },
      {
        title: '7. Your rights',
        paragraphs: [
          'You may ask for confirmation of processing, access, correction, anonymisation, blocking or deletion of unnecessary data, portability, information on sharing and review of automated decisions, and you may object to processing based on legitimate interest.',
          'To exercise these rights, write to us through the Contact page. We may ask you to confirm your identity to protect your data. You may also lodge a complaint with Brazil’s National Data Protection Authority (ANPD).',
        ],
      },
      {
        title: '8. Cookies and local storage',
        paragraphs: [
          'The website uses no advertising cookies. The browser keeps only the language you chose and, for people who sign in, the session, which is cleared on logout.',
        ],
      },
    ],
  },
}
