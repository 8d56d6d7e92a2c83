import { useEffect, useRef, useState } from 'react'
import { useTranslation } from 'react-i18next'
import { animates, useCountUp } from '../../lib/useCountUp'

/** A figure that counts up from zero once it scrolls into view. */
export default function CountUp({ to, prefix = '', suffix = '', testId }: { to: number; prefix?: string; suffix?: string; testId?: string }) {
  const { i18n } = useTranslation()
  const ref = useRef<HTMLSpanElement>(null)
  // Where nothing animates, or nothing says when the figure is in view, it is shown as it is at once.
  const observes = typeof IntersectionObserver !== 'undefined'
  const [seen, setSeen] = useState(() => !animates() || !observes)

  useEffect(() => {
    const node = ref.current
    if (seen || !node) return
    const observer = new IntersectionObserver((entries) => {
      if (entries.some((e) => e.isIntersecting)) {
        observer.disconnect()
        setSeen(true)
      }
    })
    observer.observe(node)
    return () => observer.disconnect()
  }, [seen])

  const counted = useCountUp(seen ? to : 0)
  const value = observes ? counted : to

  return (
    <span ref={ref} className="pub-count" data-testid={testId} data-target={to}>
      {prefix}
      {value.toLocaleString(i18n.language)}
      {suffix}
    </span>
  )
}
