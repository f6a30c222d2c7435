// Expands the generator objects of tests/fixtures (see tests/fixtures/gen/common.py).
// No Node APIs: the browser test loads this file too.
export function expand(v) {
  if (Array.isArray(v)) return v.map(expand);
  if (v && typeof v === "object") {
    if ("$repeat" in v) return expand(v.$repeat[0]).repeat(v.$repeat[1]);
    if ("$concat" in v) return v.$concat.map(expand).join("");
    if ("$lines" in v) {
      const t = expand(v.$lines[0]);
      return Array.from({ length: v.$lines[1] }, (_, i) => t.replaceAll("{i}", String(i + 1))).join("\n");
    }
    if ("$bytes" in v) return Uint8Array.from(v.$bytes);
    return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, expand(x)]));
  }
  return v;
}
