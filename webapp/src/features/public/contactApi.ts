import { api } from '../../store/api'
import type { ContactService } from './services'

export interface ContactRequestBody {
  name: string
  document: string
  email: string
  phone: string | null
  service: ContactService
  message: string
  domain_url: string
}

export const contactApi = api.injectEndpoints({
  endpoints: (build) => ({
    sendContact: build.mutation<{ position: number }, ContactRequestBody>({
      query: (body) => ({ url: 'contact', method: 'POST', body }),
    }),
  }),
})

export const { useSendContactMutation } = contactApi
