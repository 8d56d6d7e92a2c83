/** Count-up duration (specification section 9). */
export const COUNT_UP_MS = 1000

/** Value shown `elapsed` ms into a count-up to `target` (ease-out, whole numbers, exact at the end). */
export function countUpValue(target: number, elapsed: number, duration = COUNT_UP_MS): number {
  if (elapsed >= duration) return target
  const t = Math.max(0, elapsed) / duration
  return Math.round(target * (1 - (1 - t) ** 3))
}
