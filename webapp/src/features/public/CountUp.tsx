import { useEffect, useRef, useState } from 'react'
import { useTranslation } from 'react-i18next'
import { countUpValue } from '../../lib/countUp'

/** A figure that counts up from zero once it scrolls into view. */
export default function CountUp({ to, prefix = '', suffix = '', testId }: { to: number; prefix?: string; suffix?: string; testId?: string }) {
  const { i18n } = useTranslation()
  const ref = useRef<HTMLSpanElement>(null)
  const [value, setValue] = useState(0)

  useEffect(() => {
    const node = ref.current
    const reduced = typeof window.matchMedia === 'function' && window.matchMedia('(prefers-reduced-motion: reduce)').matches
    if (!node || reduced || typeof IntersectionObserver === 'undefined' || typeof requestAnimationFrame === 'undefined') {
      setValue(to)
      return
    }
    let frame = 0
    let start = 0
    const step = (now: number) => {
      if (!start) start = now
      const next = countUpValue(to, now - start)
      setValue(next)
      if (next !== to) frame = requestAnimationFrame(step)
    }
    const observer = new IntersectionObserver((entries) => {
      if (entries.some((e) => e.isIntersecting)) {
        observer.disconnect()
        frame = requestAnimationFrame(step)
      }
    })
    observer.observe(node)
    return () => {
      observer.disconnect()
      cancelAnimationFrame(frame)
    }
  }, [to])

  return (
    <span ref={ref} className="pub-count" data-testid={testId} data-target={to}>
      {prefix}
      {value.toLocaleString(i18n.language)}
      {suffix}
    </span>
  )
}
