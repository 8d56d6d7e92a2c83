/** The title band of an inner public page. */
export default function PageHero({ title, lead, testId }: { title: string; lead?: string; testId?: string }) {
  return (
    <section className="pub-page-hero" data-testid={testId}>
      <div className="pub-container">
        <h1>{title}</h1>
        {lead && <p className="pub-lead">{lead}</p>}
      </div>
    </section>
  )
}
