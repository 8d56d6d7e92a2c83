import { usePurposeSettingQuery } from '../store/generated/bemteviApi'

/** The longest purpose the server records, until its setting says (the same number). */
const DEFAULT_MAX = 200
/** The purposes the terms of use name as legitimate (suggested, never imposed: the text is free). */
export const SUGGESTED_PURPOSES = ['creditAnalysis', 'fraudPrevention', 'debtCollection', 'legalCompliance', 'prospecting'] as const

/** Whether the group (the user's own, or the customer named) requires a purpose, and its longest length. */
export function usePurposeSetting(groupId?: string | null): { required: boolean; maxLength: number } {
  const setting = usePurposeSettingQuery({ groupId: groupId || undefined })
  return { required: setting.data?.purposeRequired ?? false, maxLength: setting.data?.purposeMaxLength ?? DEFAULT_MAX }
}

/** The purpose as the server records it: its words joined by single spaces. */
export function foldPurpose(value: string): string {
  return value.split(/\s+/).filter(Boolean).join(' ')
}

/** What is wrong with a typed purpose, as the server would refuse it; null when it may be sent. */
export function purposeProblem(value: string, required: boolean, maxLength: number): 'required' | 'tooLong' | null {
  const folded = foldPurpose(value)
  if (!folded) return required ? 'required' : null
  return folded.length > maxLength ? 'tooLong' : null
}
