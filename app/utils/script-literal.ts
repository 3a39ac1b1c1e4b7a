const UNSAFE_IN_SCRIPT: Record<string, string> = {
  "<": "\\u003c",
  ">": "\\u003e",
  "&": "\\u0026",
  "\u2028": "\\u2028",
  "\u2029": "\\u2029",
};

/**
 * A value as a JavaScript literal that can stand inside an inline `<script>`: JSON with the characters that could
 * close the element or open a comment in it (`</script>`, `<!--`) written as escapes, and the two line separators
 * that older engines refuse in a string literal.
 */
export function scriptLiteral(value: unknown): string {
  return JSON.stringify(value).replace(/[<>&\u2028\u2029]/g, (character) => UNSAFE_IN_SCRIPT[character]!);
}
