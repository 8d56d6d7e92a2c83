import { useState } from 'react'
import { useAppSelector } from '../../store/hooks'
import {
  useCustomerQuery,
  useEnabledLayoutsQuery,
  useEnabledQueryTypesQuery,
  type Toggles,
} from '../../store/generated/bemteviApi'
import { EMPTY_CUSTOMER, formOf, type CustomerForm } from './validation'

/**
 * A customer's form and what it may be given: the customer's detail (when there is one), the query types and
 * layouts the signed-in group may give, the form and the customer's toggles.
 */
export function useCustomerForm({
  customerId,
  startsNew,
  keepTyped,
}: {
  customerId: string | null
  /** A new customer starts with every query type offered. */
  startsNew: boolean
  /** The form was typed here (a customer just registered): the detail brings only its toggles. */
  keepTyped: boolean
}) {
  const position = useAppSelector((s) => s.session.lastPosition)
  const loaded = useCustomerQuery({ groupId: customerId ?? '', position }, { skip: !customerId, refetchOnMountOrArgChange: true })
  const detail = loaded.data?.data
  // The query types this group may give its customers: its own enabled, active ones (the catalogue's).
  const offered = useEnabledQueryTypesQuery({ position }).data?.data ?? []
  // Likewise the layouts (customers never get more than their parent has).
  // A group's own layouts (written or copied by it) are not its to give: only the platform's it was given.
  const layouts = (useEnabledLayoutsQuery({ position }).data?.data ?? []).filter((l) => !l.groupId)
  const [form, setForm] = useState<CustomerForm>(EMPTY_CUSTOMER)
  const [toggles, setToggles] = useState<Toggles>({})

  // The loaded customer fills the form once (derived while rendering, not in an effect); later
  // answers (after a brand change, say) must not overwrite what the user is typing.
  const [filledFor, setFilledFor] = useState<string | null>(null)
  if (detail && detail.id !== filledFor) {
    setFilledFor(detail.id)
    if (!keepTyped) setForm(formOf(detail))
    setToggles(detail.toggles)
  }
  // A new customer starts with every type offered (once, while rendering).
  const [offeredFilled, setOfferedFilled] = useState(false)
  if (startsNew && !offeredFilled && offered.length > 0) {
    setOfferedFilled(true)
    setForm((f) => ({ ...f, enabledQueryTypes: offered.map((q) => q.key) }))
  }
  // What the access rows need besides the form (CustomerAccessFields' props).
  const access = { offered, layouts, detail, toggles, setToggles }
  return { loaded, detail, offered, form, setForm, toggles, access }
}
