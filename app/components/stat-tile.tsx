export function StatTile({ label, value }: { label: string; value: number | string }) {
  // The label comes first in the markup (a dt must precede its dd) and is shown under the number. The number's row
  // has its line's height before the number arrives, so a page painted half-loaded already shows the label in place.
  return (
    <div className="grid grid-rows-[2rem_auto] rounded-2xl border border-edge bg-surface px-4 py-3 text-center shadow-sm sm:grid-rows-[2.25rem_auto]">
      <dt className="row-start-2 mt-1 text-xs font-medium uppercase tracking-wide text-ink-muted">{label}</dt>
      <dd className="row-start-1 text-2xl font-bold tabular-nums text-ink sm:text-3xl">{value}</dd>
    </div>
  );
}
