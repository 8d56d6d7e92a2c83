import { api } from '../../store/api'
import type { LoginResponse, MessageResponse } from '../../types/api'

export interface CreateAccountRequest {
  name: string
  lastName: string
  email: string
  companyName: string
  phone: string
  password: string
  confirmation: string
  acceptTerms: boolean
  domain_url: string
  locale: string
}

export interface RecoveryTicket {
  id: string
  uniqueKey: string
}

export interface CodeRequest extends RecoveryTicket {
  code: string
}

export interface OutboxMail {
  id: string
  to: string
  subject: string
  text: string | null
  reason: string
  status: 'queued' | 'sent' | 'kept' | 'failed'
  attempts: number
  lastError: string | null
  time: string
  updatedAt: string
}

export interface OutboxPage {
  data: OutboxMail[]
  total: number
  page: number
  perPage: number
}

export const accountsApi = api.injectEndpoints({
  endpoints: (build) => ({
    authConfig: build.query<{ googleClientId: string | null }, void>({
      query: () => 'auth/config',
    }),
    createAccount: build.mutation<LoginResponse, CreateAccountRequest>({
      query: (body) => ({ url: 'auth/create-account', method: 'POST', body }),
    }),
    googleSignIn: build.mutation<LoginResponse, { credential: string; domain_url: string }>({
      query: (body) => ({ url: 'auth/google', method: 'POST', body }),
    }),
    requestRecovery: build.mutation<{ message: string; data: RecoveryTicket }, { email: string; domain_url: string; locale: string }>({
      query: (body) => ({ url: 'auth/password-recovery', method: 'POST', body }),
    }),
    verifyCode: build.mutation<MessageResponse, CodeRequest>({
      query: (body) => ({ url: 'auth/verify-code', method: 'POST', body }),
    }),
    redefinePassword: build.mutation<MessageResponse, CodeRequest & { password: string; confirmation: string }>({
      query: (body) => ({ url: 'auth/redefine-password', method: 'POST', body }),
    }),
    firstAccess: build.mutation<MessageResponse, { password: string; confirmation: string }>({
      query: (body) => ({ url: 'auth/first-access', method: 'POST', body }),
    }),
    mailOutbox: build.query<OutboxPage, { page: number; perPage: number }>({
      query: (params) => ({ url: 'mail/outbox', params }),
    }),
  }),
})

export const {
  useAuthConfigQuery,
  useCreateAccountMutation,
  useGoogleSignInMutation,
  useRequestRecoveryMutation,
  useVerifyCodeMutation,
  useRedefinePasswordMutation,
  useFirstAccessMutation,
  useMailOutboxQuery,
} = accountsApi
