export function StatTile({ label, value }: { label: string; value: number | string }) {
  return (
    <div className="rounded-2xl border border-slate-200 bg-white px-4 py-3 text-center shadow-sm">
      <dd className="text-2xl font-bold tabular-nums text-slate-900 sm:text-3xl">{value}</dd>
      <dt className="mt-1 text-xs font-medium uppercase tracking-wide text-slate-600">{label}</dt>
    </div>
  );
}
