/**
 * A command's map from the service's field paths to its flags, read by the longest mapped prefix
 * of a path: a refused list item or map entry (`monitor.statusCodeAssertions.0.target`,
 * `monitor.openTelemetry.headers.authorization`) is named by the flag of its list or map
 * (`--assert-status`, `--otlp-header`), not by a flag that happens to share its last word.
 */
export function fieldFlags(flags: Record<string, string>): Record<string, string> {
  return new Proxy(flags, {
    get(map, path) {
      if (typeof path !== 'string') return undefined;
      const parts = path.split('.');
      for (let length = parts.length; length > 0; length--) {
        const prefix = parts.slice(0, length).join('.');
        if (Object.hasOwn(map, prefix)) return map[prefix];
      }
      return undefined;
    },
  });
}
