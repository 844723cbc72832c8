#!/usr/bin/env bash
# Runs one command inside a QEMU guest that boots Debian 12's own kernel (linux-image-amd64:
# cgroup v2 only, netem and veth as modules) over this machine's root filesystem, shared
# read-only through virtio-9p. It exists so the lab can be tested on the kernel most users have,
# which this build machine (cgroup v1, no netem) is not.
#
#   scripts/stock-kernel-vm.sh [options] [--] COMMAND [ARG...]
#   scripts/stock-kernel-vm.sh --prepare        fetch and build the cached kernel, modules, initramfs
#   scripts/stock-kernel-vm.sh --check          exit 0 when the VM can run here, else say why (exit 1)
#
# Options:
#   --cwd DIR          directory the command starts in (default: the current directory)
#   --timeout SECONDS  hard limit for the whole VM, boot included (default 900); exit 124 past it
#   --memory MB        guest memory (default 4096)
#   --cpus N           guest CPUs (default: this machine's cores)
#   --share DIR        also show DIR read-only at the same path (for dirs under a guest tmpfs)
#   --share-rw DIR     show DIR read-write at the same path: how results get out of the guest
#   --env NAME=VALUE   set a variable for the command (repeatable)
#   --console          copy the guest kernel's console to stderr as well
#   --keep             keep the job directory (console log, output log) and print its path
#
# The guest: no NIC (loopback only); tmpfs on /tmp, /run, /var (a copy of /var's directory
# skeleton), /root; /lib/modules is the kernel's own module tree; cgroup2 alone at
# /sys/fs/cgroup with the controllers systemd enables; the command runs as root in
# system.slice/lnb-vm-job.service, HOME=/root. Its stdout and stderr are streamed here; the exit
# status is the command's (124 on timeout, 125 when the VM itself failed).
set -euo pipefail

HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
# root's cache is shared (setup.sh fills it); anyone else keeps one in their own cache directory
if [ -n "${LNB_STOCK_KERNEL_CACHE:-}" ]; then
  CACHE_DIR="$LNB_STOCK_KERNEL_CACHE"
elif [ "$(id -u)" = 0 ]; then
  CACHE_DIR=/var/cache/lambda-netbench/stock-kernel
else
  CACHE_DIR="${XDG_CACHE_HOME:-$HOME/.cache}/lambda-netbench/stock-kernel"
fi
# Modules the initramfs loads, in dependency order, to reach the 9p root and the /usr/lib overlay.
INITRAMFS_MODULES=(virtio_ring virtio virtio_pci_legacy_dev virtio_pci_modern_dev virtio_pci
  netfs fscache 9pnet 9pnet_virtio 9p overlay)

die() {
  echo "stock-kernel-vm: $*" >&2
  exit 125
}

missing_tools() {
  local tool missing=()
  for tool in qemu-system-x86_64 busybox cpio depmod dpkg-deb apt-get gzip setpriv; do
    command -v "$tool" >/dev/null 2>&1 || missing+=("$tool")
  done
  # busybox-static, not the dynamically linked busybox: the initramfs has no libc
  if command -v busybox >/dev/null 2>&1 && ldd "$(command -v busybox)" >/dev/null 2>&1; then
    missing+=("busybox-static")
  fi
  echo "${missing[*]}"
}

# ---------------------------------------------------------------------------------------------
# Cache: <cache>/<kernel release>/{vmlinuz,config,package,modules/<release>/...}, then
# <cache>/current -> <release>. The initramfs is rebuilt whenever this script changes.

kernel_package() {
  # linux-image-amd64 is a meta package; its dependency is the versioned image.
  apt-cache depends linux-image-amd64 2>/dev/null |
    awk '/Depends: linux-image-[0-9]/ { print $2; exit }'
}

fetch_kernel() {
  local work="$1" package
  package="$(kernel_package)"
  if [ -z "$package" ]; then
    [ "$(id -u)" = 0 ] || die "apt does not know linux-image-amd64 and only root can run apt-get update"
    apt-get update -qq
    package="$(kernel_package)"
  fi
  [ -n "$package" ] || die "apt-cache depends linux-image-amd64 names no linux-image-<version> package"
  echo "stock-kernel-vm: fetching $package from Debian's apt" >&2
  (cd "$work" && apt-get download -q "$package" 2>&1 | grep -v "^W: Download is performed unsandboxed" >&2) ||
    die "apt-get download $package failed"
  ls "$work"/*.deb >/dev/null 2>&1 || die "apt-get download $package produced no .deb"
}

prepare_kernel() {
  mkdir -p "$CACHE_DIR"
  if [ -f "$CACHE_DIR/current" ] && [ -f "$CACHE_DIR/$(cat "$CACHE_DIR/current")/vmlinuz" ]; then
    return 0
  fi
  local work release
  rm -rf "$CACHE_DIR"/.build.* # an earlier attempt that failed; we hold the lock
  work="$(mktemp -d "$CACHE_DIR/.build.XXXXXX")"
  fetch_kernel "$work"
  dpkg-deb -x "$work"/*.deb "$work/root"
  release="$(ls "$work/root/lib/modules")"
  [ -f "$work/root/boot/vmlinuz-$release" ] || die "the package has no /boot/vmlinuz-$release"
  depmod -b "$work/root" "$release"
  mkdir -p "$work/out/modules"
  mv "$work/root/lib/modules/$release" "$work/out/modules/$release"
  mv "$work/root/boot/vmlinuz-$release" "$work/out/vmlinuz"
  mv "$work/root/boot/config-$release" "$work/out/config"
  basename "$work"/*.deb .deb >"$work/out/package"
  rm -rf "${CACHE_DIR:?}/$release"
  mv "$work/out" "$CACHE_DIR/$release"
  echo "$release" >"$CACHE_DIR/current.tmp"
  mv "$CACHE_DIR/current.tmp" "$CACHE_DIR/current"
  rm -rf "$work"
  echo "stock-kernel-vm: cached kernel $release in $CACHE_DIR" >&2
}

prepare_initramfs() {
  local kernel_dir="$1" release="$2" recipe initrd work module
  recipe="$(sha256sum "${BASH_SOURCE[0]}" "$HERE/stock-kernel-vm-init.sh" | sha256sum | cut -c1-16)"
  initrd="$kernel_dir/initramfs-$recipe.cpio.gz"
  if [ -f "$initrd" ]; then
    echo "$initrd"
    return 0
  fi
  rm -rf "$CACHE_DIR"/.initramfs.*
  work="$(mktemp -d "$CACHE_DIR/.initramfs.XXXXXX")"
  mkdir -p "$work"/{bin,sbin,dev,proc,sys,newroot,modules,hostvar}
  cp "$(command -v busybox)" "$work/bin/busybox"
  for module in "${INITRAMFS_MODULES[@]}"; do
    local path
    path="$(find "$kernel_dir/modules/$release/kernel" -name "$module.ko" -o -name "$module.ko.xz" | head -n1)"
    [ -n "$path" ] || die "module $module not in the kernel package"
    case "$path" in
    *.xz) xz -dc "$path" >"$work/modules/$module.ko" ;;
    *) cp "$path" "$work/modules/$module.ko" ;;
    esac
  done
  cp "$HERE/stock-kernel-vm-init.sh" "$work/init"
  chmod 755 "$work/init"
  (cd "$work" && find . -mindepth 1 | cpio -o -H newc --quiet | gzip -1) >"$initrd.tmp"
  rm -f "$kernel_dir"/initramfs-*.cpio.gz # built by an earlier version of these scripts
  mv "$initrd.tmp" "$initrd"
  rm -rf "$work"
  echo "$initrd"
}

prepare() {
  local problems
  problems="$(missing_tools)"
  [ -z "$problems" ] || die "missing: $problems (scripts/setup.sh installs qemu-system-x86 busybox-static cpio kmod)"
  mkdir -p "$CACHE_DIR"
  exec 9>"$CACHE_DIR/.lock"
  flock 9
  prepare_kernel
  RELEASE="$(cat "$CACHE_DIR/current")"
  KERNEL_DIR="$CACHE_DIR/$RELEASE"
  INITRD="$(prepare_initramfs "$KERNEL_DIR" "$RELEASE")"
  flock -u 9
  exec 9>&-
}

# ---------------------------------------------------------------------------------------------

timeout_seconds=900
memory_mb=4096
cpus="$(nproc)"
cwd="$PWD"
shares_ro=()
shares_rw=()
envs=()
console=0
keep=0
mode=run
while [ $# -gt 0 ]; do
  case "$1" in
  --prepare) mode=prepare ;;
  --check) mode=check ;;
  --cwd) cwd="$2"; shift ;;
  --timeout) timeout_seconds="$2"; shift ;;
  --memory) memory_mb="$2"; shift ;;
  --cpus) cpus="$2"; shift ;;
  --share) shares_ro+=("$(realpath "$2")"); shift ;;
  --share-rw) shares_rw+=("$(realpath "$2")"); shift ;;
  --env)
    [[ "$2" == [A-Za-z_]*=* ]] || die "--env wants NAME=VALUE, got: $2"
    envs+=("$2"); shift ;;
  --console) console=1 ;;
  --keep) keep=1 ;;
  --) shift; break ;;
  -*) die "unknown option $1 (see the comment at the top of $0)" ;;
  *) break ;;
  esac
  shift
done

case "$mode" in
check)
  problems="$(missing_tools)"
  if [ -n "$problems" ]; then
    echo "stock-kernel-vm: cannot run here, missing: $problems" >&2
    exit 1
  fi
  exit 0
  ;;
prepare)
  prepare
  echo "stock-kernel-vm: ready: $(cat "$KERNEL_DIR/package"), initramfs $INITRD" >&2
  exit 0
  ;;
esac

[ $# -gt 0 ] || die "no command given (usage: $0 [options] [--] COMMAND [ARG...])"
[[ "$timeout_seconds" =~ ^[0-9]+$ ]] || die "--timeout wants whole seconds, got: $timeout_seconds"
[[ "$memory_mb" =~ ^[0-9]+$ ]] || die "--memory wants megabytes, got: $memory_mb"
[[ "$cpus" =~ ^[0-9]+$ ]] || die "--cpus wants a count, got: $cpus"
cwd="$(realpath "$cwd")"
[ -d "$cwd" ] || die "--cwd $cwd is not a directory"
prepare

# The guest mounts tmpfs over these; anything the command needs below them is shared explicitly.
case "$cwd/" in
/tmp/* | /run/* | /var/* | /root/*) shares_ro+=("$cwd") ;;
esac

# Job directories of runs that were SIGKILLed (their QEMU died with them, through pdeathsig).
for stale in /tmp/lnb-vm-job.*/harness-pid; do
  [ -f "$stale" ] || continue
  kill -0 "$(cat "$stale")" 2>/dev/null || rm -rf "$(dirname "$stale")"
done
job="$(mktemp -d /tmp/lnb-vm-job.XXXXXX)"
echo "$$" >"$job/harness-pid"
qemu_pid=""
tail_pid=""
finish() {
  local status=$?
  trap - EXIT INT TERM HUP
  if [ -n "$qemu_pid" ] && kill -0 "$qemu_pid" 2>/dev/null; then
    kill -TERM "$qemu_pid" 2>/dev/null || true
    for _ in 1 2 3 4 5 6 7 8 9 10; do
      kill -0 "$qemu_pid" 2>/dev/null || break
      sleep 0.5
    done
    kill -KILL "$qemu_pid" 2>/dev/null || true
    wait "$qemu_pid" 2>/dev/null || true
  fi
  [ -n "$tail_pid" ] && { kill "$tail_pid" 2>/dev/null || true; wait "$tail_pid" 2>/dev/null || true; }
  if [ "$keep" = 1 ]; then
    echo "stock-kernel-vm: job directory kept: $job" >&2
  else
    rm -rf "$job"
  fi
  exit "$status"
}
trap finish EXIT
trap 'echo "stock-kernel-vm: interrupted, stopping QEMU" >&2; exit 130' INT
trap 'echo "stock-kernel-vm: terminated, stopping QEMU" >&2; exit 143' TERM HUP

# The job: what the guest's init runs. Every word quoted, so arguments survive as given.
{
  echo "cd $(printf '%q' "$cwd") || exit 125"
  for assignment in "${envs[@]}"; do
    echo "export $(printf '%q' "$assignment")"
  done
  printf 'exec'
  printf ' %q' "$@"
  printf '\n'
} >"$job/command.sh"
cp "$HERE/stock-kernel-vm-init.pl" "$job/init.pl"
echo "$timeout_seconds" >"$job/timeout-seconds"
: >"$job/output.log"
: >"$job/console.log"

qemu_args=(
  -accel tcg,thread=multi -cpu max -smp "$cpus" -m "$memory_mb"
  -nodefaults -display none -no-reboot -monitor none -nic none
  -kernel "$KERNEL_DIR/vmlinuz" -initrd "$INITRD"
  -append "console=ttyS0 loglevel=4 panic=-1 no_timer_check rdinit=/init lnb.shares=${#shares_ro[@]},${#shares_rw[@]}"
  -serial "file:$job/console.log"
  -chardev "file,id=joboutput,path=$job/output.log" -serial chardev:joboutput
  -fsdev "local,id=hostroot,path=/,security_model=passthrough,readonly=on,multidevs=remap"
  -device virtio-9p-pci,fsdev=hostroot,mount_tag=hostroot
  -fsdev "local,id=modules,path=$KERNEL_DIR/modules,security_model=passthrough,readonly=on"
  -device virtio-9p-pci,fsdev=modules,mount_tag=modules
  -fsdev "local,id=job,path=$job,security_model=none"
  -device virtio-9p-pci,fsdev=job,mount_tag=job
)
share_index=0
for dir in "${shares_ro[@]}"; do
  qemu_args+=(-fsdev "local,id=ro$share_index,path=$dir,security_model=passthrough,readonly=on"
    -device "virtio-9p-pci,fsdev=ro$share_index,mount_tag=ro$share_index")
  echo "ro$share_index $dir" >>"$job/shares"
  share_index=$((share_index + 1))
done
share_index=0
for dir in "${shares_rw[@]}"; do
  qemu_args+=(-fsdev "local,id=rw$share_index,path=$dir,security_model=passthrough"
    -device "virtio-9p-pci,fsdev=rw$share_index,mount_tag=rw$share_index")
  echo "rw$share_index $dir" >>"$job/shares"
  share_index=$((share_index + 1))
done
: >>"$job/shares"

# setpriv --pdeathsig: QEMU dies with this script even if the script is SIGKILLed.
setpriv --pdeathsig KILL -- qemu-system-x86_64 "${qemu_args[@]}" </dev/null >"$job/qemu.log" 2>&1 &
qemu_pid=$!
tail -n +1 -f --pid="$qemu_pid" "$job/output.log" &
tail_pid=$!
if [ "$console" = 1 ]; then
  tail -n +1 -f --pid="$qemu_pid" "$job/console.log" >&2 &
fi

# Poll rather than wait: the deadline needs no helper process that could outlive us.
deadline=$((SECONDS + timeout_seconds))
timed_out=0
while kill -0 "$qemu_pid" 2>/dev/null; do
  if [ "$SECONDS" -ge "$deadline" ]; then
    timed_out=1
    echo "stock-kernel-vm: timed out after ${timeout_seconds}s, stopping QEMU (pid $qemu_pid)" >&2
    break
  fi
  sleep 1
done
qemu_status=0
if [ "$timed_out" = 0 ]; then
  wait "$qemu_pid" || qemu_status=$?
  qemu_pid_done="$qemu_pid"
  qemu_pid=""
  wait "$tail_pid" 2>/dev/null || true
  tail_pid=""
else
  exit 124 # finish stops QEMU
fi

if [ -s "$job/exit-code" ]; then
  exit "$(cat "$job/exit-code")"
fi
{
  echo "stock-kernel-vm: the guest ended without an exit code (QEMU pid $qemu_pid_done exited $qemu_status)"
  echo "--- qemu:"
  tail -n 20 "$job/qemu.log"
  echo "--- guest console (last 40 lines):"
  tail -n 40 "$job/console.log"
} >&2
exit 125
