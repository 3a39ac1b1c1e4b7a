export function StatTile({ label, value }: { label: string; value: number | string }) {
  // The label comes first in the markup (a dt must precede its dd) and is shown under the number.
  return (
    <div className="flex flex-col-reverse rounded-2xl border border-edge bg-surface px-4 py-3 text-center shadow-sm">
      <dt className="mt-1 text-xs font-medium uppercase tracking-wide text-ink-muted">{label}</dt>
      <dd className="text-2xl font-bold tabular-nums text-ink sm:text-3xl">{value}</dd>
    </div>
  );
}
