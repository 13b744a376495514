/**
 * JSON modules are imported with `with { type: 'json' }` and validated at load time, so their
 * static type is `unknown` (resolveJsonModule is off: inferring a type for the 1.1 MB catalog
 * would slow every typecheck for no safety gained).
 */
declare module '*.json' {
  const value: unknown;
  export default value;
}
