/**
 * Stands in for the `whatwg-url` package in the function bundles (esbuild `alias`, see
 * ../function-bundle.ts). Its only importer there is node-fetch 2.7.0 (client-node 1.4's HTTP
 * client), which takes it as a fallback: `const URL = Url.URL || whatwgUrl.URL;`
 * (node-fetch `lib/index.mjs`, lines 1139 and 1398) — and Node's `url.URL` always exists, so
 * the 280 KB of whatwg-url and tr46 (Unicode tables) were bundled and never used.
 */
import { URL, URLSearchParams } from 'node:url';

/** Node's URL, where whatwg-url's would have been. */
export { URL, URLSearchParams };

/** The package's exports as one object. */
const whatwgUrl = { URL, URLSearchParams };
// biome-ignore lint/style/noDefaultExport: node-fetch imports the package's default: `import whatwgUrl from 'whatwg-url'`.
export default whatwgUrl;
