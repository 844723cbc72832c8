#!/bin/busybox sh
# Stage 1 of the stock-kernel VM (scripts/stock-kernel-vm.sh), run from the initramfs by
# busybox-static: load the virtio and 9p modules, mount the host's root read-only with tmpfs
# where a system writes, the kernel's module tree at /lib/modules, cgroup2 alone at
# /sys/fs/cgroup, then hand over to stage 2 (init.pl in the job directory) in the new root.
/bin/busybox --install -s /bin
export PATH=/bin

fail() {
  echo "stock-kernel-vm init: $*" >&2
  # panic=-1 on the command line turns this into a reboot, and -no-reboot into QEMU's exit
  echo o >/proc/sysrq-trigger
  exit 1
}

mount -t proc proc /proc
mount -t sysfs sysfs /sys
mount -t devtmpfs devtmpfs /dev

for module in virtio_ring virtio virtio_pci_legacy_dev virtio_pci_modern_dev virtio_pci \
  netfs fscache 9pnet 9pnet_virtio 9p overlay; do
  insmod "/modules/$module.ko" || fail "insmod $module failed"
done

mount9p() { # tag dir options
  local attempt=0
  # the virtio devices are probed as the driver loads, but give them a moment on a slow host
  until mount -t 9p -o "trans=virtio,version=9p2000.L,msize=512000,$3" "$1" "$2" 2>/dev/null; do
    attempt=$((attempt + 1))
    [ "$attempt" -lt 50 ] || fail "cannot mount 9p export $1 on $2"
    sleep 0.1
  done
}

R=/newroot
mount9p hostroot $R ro,cache=loose
# /var: a tmpfs holding the host's directory skeleton (three levels, with owners, modes and
# symlinks such as /var/run -> /run), so daemons find /var/lib/<name>, /var/log/<name>, ...
mount --bind $R/var /hostvar
mount -t tmpfs -o mode=755 tmpfs $R/var
(
  cd /hostvar || exit 1
  find . -mindepth 1 -maxdepth 3 \( -type d -o -type l \) | while read -r entry; do
    if [ -L "$entry" ]; then
      ln -s "$(readlink "$entry")" "$R/var/$entry"
    else
      mkdir -p "$R/var/$entry"
      chown "$(stat -c %u:%g "$entry")" "$R/var/$entry"
      chmod "$(stat -c %a "$entry")" "$R/var/$entry"
    fi
  done
)
umount /hostvar
mount -t tmpfs -o mode=1777 tmpfs $R/tmp
mount -t tmpfs -o mode=755 tmpfs $R/run
mount -t tmpfs -o mode=700 tmpfs $R/root
mkdir -p $R/run/lnb-vm/job $R/run/lnb-vm/usrlib/upper $R/run/lnb-vm/usrlib/work \
  $R/run/lock $R/run/user
chmod 1777 $R/run/lock
mount9p job $R/run/lnb-vm/job cache=none

# /lib/modules (/usr/lib/modules on merged-usr Debian) does not exist on the host, and the root is
# read-only: an overlay on /usr/lib (upper layer in tmpfs) gives it a mount point.
mount -t overlay overlay \
  -o lowerdir=$R/usr/lib,upperdir=$R/run/lnb-vm/usrlib/upper,workdir=$R/run/lnb-vm/usrlib/work \
  $R/usr/lib || fail "overlay on /usr/lib failed"
mkdir -p $R/usr/lib/modules
mount9p modules $R/usr/lib/modules ro,cache=loose

# Extra exports from --share / --share-rw, each at its host path.
while read -r tag dir; do
  [ -n "$tag" ] || continue
  mkdir -p "$R$dir" 2>/dev/null
  case "$tag" in
  ro*) mount9p "$tag" "$R$dir" ro,cache=loose ;;
  rw*) mount9p "$tag" "$R$dir" cache=none ;;
  esac
done <$R/run/lnb-vm/job/shares

mount -t proc proc $R/proc
mount -t sysfs sysfs $R/sys
mount -t devtmpfs devtmpfs $R/dev
mkdir -p $R/dev/pts $R/dev/shm
mount -t devpts -o gid=5,mode=620,ptmxmode=000 devpts $R/dev/pts
mount -t tmpfs -o mode=1777 tmpfs $R/dev/shm
# cgroup v2 alone, mounted as systemd mounts it on Debian 12
mount -t cgroup2 -o nsdelegate,memory_recursiveprot cgroup2 $R/sys/fs/cgroup ||
  fail "cannot mount cgroup2"

umount /proc /sys
exec switch_root $R /usr/bin/perl /run/lnb-vm/job/init.pl
