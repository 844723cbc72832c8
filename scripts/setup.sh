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

npm ci --no-audit --no-fund
npm run build
