/**
 * client-node's typed models turn timestamps into `Date`s; the core parsers (podFromManifest,
 * nodeFromManifest, ...) read the API's JSON, where timestamps are RFC 3339 strings. A model's
 * property names are the JSON field names, so a JSON round trip gives the wire form back.
 */
export function toPlainJson(model: unknown): unknown {
  return model === undefined ? undefined : JSON.parse(JSON.stringify(model));
}
