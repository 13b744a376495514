#!/usr/bin/env bash
# Synthesizes the demo cluster's stack offline, bundling included (local esbuild, no Docker),
# with cdk-nag and CloudFormation's built-in validation, and fails on any error or warning line.
# Then checks each function bundle is ESM with the createRequire banner, has its source map and
# loads with a `handler` export (the installer: `onEvent` and `isComplete`, with its rendered
# manifests beside it), that the three functions reading the instance catalog carry its
# compressed file (catalog.json.br, infra/parts/function-bundle.ts) and termination does not,
# and that the watcher's build context holds its bundle.
set -euo pipefail
cd "$(dirname "$0")/.."
export CDK_DISABLE_VERSION_CHECK=1 CDK_DISABLE_CLI_TELEMETRY=true AWS_EC2_METADATA_DISABLED=true \
  AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED=true
log="$(mktemp)"
trap 'rm -f "$log"' EXIT
start=$(date +%s)
# CHECK_ONLY=1 checks an existing cdk.out without synthesizing again.
if [ "${CHECK_ONLY:-}" = 1 ]; then
  : >"$log"
else
  rm -rf cdk.out
fi
if [ "${CHECK_ONLY:-}" != 1 ] && ! npx cdk synth -c cluster=demo --quiet --no-notices >"$log" 2>&1; then
  cat "$log"
  echo "cdk synth failed" >&2
  exit 1
fi
cat "$log"
if grep -inE 'warn|error|⚠|deprecat' "$log"; then
  echo "cdk synth printed the warnings or errors above" >&2
  exit 1
fi
bundles=0
catalogs=0
installers=0
for asset in cdk.out/asset.*/index.mjs; do
  head -c 200 "$asset" | grep -q 'createRequire(import.meta.url)' || { echo "$asset: no createRequire banner" >&2; exit 1; }
  [ -s "$asset.map" ] || { echo "$asset: no source map" >&2; exit 1; }
  # Load it as Lambda does, from an .mjs file (node -e would hide a missing `require`).
  runner="$(mktemp --suffix=.mjs)"
  manifests="$(dirname "$asset")/install-manifests.json"
  if [ -f "$manifests" ]; then
    # The installer (onEvent and isComplete share one bundle) and the manifests it applies.
    exports="onEvent isComplete"
    node -e "const o = JSON.parse(require('node:fs').readFileSync(process.argv[1], 'utf8'));
      if (!o.some((x) => x.kind === 'Deployment')) throw new Error('no watcher Deployment');" "$manifests" ||
      { echo "$manifests: not podlift's rendered manifests" >&2; exit 1; }
    installers=$((installers + 1))
  else
    exports="handler"
  fi
  printf "const m = await import(%s);\nfor (const e of '%s'.split(' ')) if (typeof m[e] !== 'function') throw new Error('no ' + e + ' export');\n" \
    "'$(realpath "$asset")'" "$exports" >"$runner"
  node "$runner" || { rm -f "$runner"; echo "$asset: does not load" >&2; exit 1; }
  rm -f "$runner"
  catalog="$(dirname "$asset")/catalog.json.br"
  if [ -f "$catalog" ]; then
    node -e "const z = require('node:zlib'), fs = require('node:fs');
      const c = JSON.parse(z.brotliDecompressSync(fs.readFileSync(process.argv[1])));
      if (!(c.instanceTypes.instanceTypes.length > 0)) throw new Error('no instance types');" "$catalog" ||
      { echo "$catalog: not a brotli-compressed catalog" >&2; exit 1; }
    catalogs=$((catalogs + 1))
  fi
  bundles=$((bundles + 1))
done
[ "$bundles" -eq 5 ] || { echo "expected 5 function bundles (4 loops, the installer), found $bundles" >&2; exit 1; }
[ "$installers" -eq 1 ] || { echo "expected 1 installer bundle with install-manifests.json, found $installers" >&2; exit 1; }
[ "$catalogs" -eq 3 ] || { echo "expected 3 function bundles with catalog.json.br, found $catalogs" >&2; exit 1; }
# The watcher's build context: its Dockerfile and the bundle it copies (docker build runs at deploy).
watcher=""
for d in cdk.out/asset.*/; do
  if [ -f "$d/Dockerfile" ]; then watcher="$d"; fi
done
if [ -z "$watcher" ] || [ ! -s "$watcher/main.mjs" ]; then
  echo "no watcher build context with main.mjs" >&2
  exit 1
fi
echo "cdk synth: clean, 5 function bundles (3 with the catalog file, the installer with its manifests), $(($(date +%s) - start)) s"
