import type { GrantRequest } from '../../store/generated/bemteviApi'

/** A credit category, as the API names it. */
export type CategoryName = GrantRequest['category']

/** The categories in the order the screens list them. */
export const CATEGORIES: CategoryName[] = ['unit', 'advanced', 'batch', 'api']
