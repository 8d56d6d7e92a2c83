import { useEffect, useRef, useState } from 'react'
import { COUNT_UP_MS, countUpValue } from './countUp'

/** Whether figures animate: frames are drawn and the reader has not asked for reduced motion. */
export function animates(): boolean {
  if (typeof requestAnimationFrame !== 'function') return false
  return !(typeof window.matchMedia === 'function' && window.matchMedia('(prefers-reduced-motion: reduce)').matches)
}

/**
 * A live figure as shown: it counts from what was shown before (zero at first) to `target` in `COUNT_UP_MS`
 * (specification section 9), so a figure that changes while on screen moves to its new value instead of jumping.
 * At once where nothing animates.
 */
export function useCountUp(target: number): number {
  const [moving] = useState(animates)
  const [shown, setShown] = useState(0)
  const current = useRef(0)

  useEffect(() => {
    if (!moving) return
    const from = current.current
    let frame = 0
    let began = 0
    const step = (now: number) => {
      if (!began) began = now
      const value = from + countUpValue(target - from, now - began, COUNT_UP_MS)
      current.current = value
      setShown(value)
      if (value !== target) frame = requestAnimationFrame(step)
    }
    frame = requestAnimationFrame(step)
    return () => cancelAnimationFrame(frame)
  }, [moving, target])

  return moving ? shown : target
}
