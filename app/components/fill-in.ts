/** Fills a text's `{name}` places with `values` (the owner's copy, app/content/site.ts); an unknown place stays. */
export function fillIn(text: string, values: Record<string, string | number>): string {
  return text.replace(/\{(\w+)\}/g, (place, name: string) =>
    Object.hasOwn(values, name) ? String(values[name]) : place,
  );
}
