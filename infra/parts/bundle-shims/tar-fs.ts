import { leftOut } from './left-out';

/**
 * Stands in for tar-fs: client-node's cp.js (copying files to and from a container) is its
 * only user. Leaves out tar-stream, streamx and their helpers (~45 KB).
 */
const tar = {
  extract(): never {
    return leftOut('tar-fs', 'cp (copying files from a container)');
  },
  pack(): never {
    return leftOut('tar-fs', 'cp (copying files to a container)');
  },
};

// biome-ignore lint/style/noDefaultExport: cp.js imports the package's default: `import tar from 'tar-fs'`.
export default tar;
