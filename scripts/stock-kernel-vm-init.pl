#!/usr/bin/perl
# Stage 2 of the stock-kernel VM (scripts/stock-kernel-vm.sh): PID 1 inside the host's root.
# It sets the guest up the way a systemd host looks to a program (loopback up, cgroup
# controllers enabled, the program in a leaf group), runs the job with its output on the second
# serial port, reaps every orphan (so an exited daemon does not linger as a zombie that still
# answers kill -0), writes the job's exit status to the job directory and powers off.
use strict;
use warnings;
use POSIX qw(setsid :sys_wait_h);

my $job = '/run/lnb-vm/job';
my $cgroup = '/sys/fs/cgroup';

sub say_console { print STDERR "stock-kernel-vm init: @_\n" }

sub write_file {
  my ($path, $text) = @_;
  open(my $fh, '>', $path) or return 0;
  my $ok = print $fh $text;
  close($fh) or return 0;
  return $ok;
}

sub power_off {
  system('sync');
  # reboot(LINUX_REBOOT_MAGIC1, LINUX_REBOOT_MAGIC2, LINUX_REBOOT_CMD_POWER_OFF); 169 = x86_64 reboot
  syscall(169, 0xfee1dead, 672274793, 0x4321fedc, 0);
  write_file('/proc/sysrq-trigger', 'o');
  sleep 60;
}

$ENV{PATH} = '/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin';
$ENV{HOME} = '/root';
$ENV{LANG} = 'C.UTF-8';
$ENV{TERM} = 'dumb';
$ENV{USER} = $ENV{LOGNAME} = 'root';
$ENV{SHELL} = '/bin/bash';
delete @ENV{qw(BOOT_IMAGE rdinit console loglevel panic)};

system('hostname', 'lnb-vm');
system('ip', 'link', 'set', 'lo', 'up') == 0 or say_console('cannot bring lo up');
# raw output on the job's serial port: no CR before every LF
system('stty', '-F', '/dev/ttyS1', 'raw', '-echo') == 0 or say_console('stty on ttyS1 failed');

# The layout systemd gives a Debian 12 host: PID 1 in init.scope, the controllers enabled at the
# root, services in system.slice with memory and pids accounting.
mkdir("$cgroup/init.scope");
write_file("$cgroup/init.scope/cgroup.procs", "$$\n") or say_console("cannot enter init.scope: $!");
write_file("$cgroup/cgroup.subtree_control", "+cpuset +cpu +io +memory +pids\n")
  or say_console("cannot enable controllers at the cgroup root: $!");
mkdir("$cgroup/system.slice");
write_file("$cgroup/system.slice/cgroup.subtree_control", "+memory +pids\n")
  or say_console("cannot enable controllers in system.slice: $!");
mkdir("$cgroup/system.slice/lnb-vm-job.service");

my $timeout_seconds = 900;
if (open(my $fh, '<', "$job/timeout-seconds")) {
  my $line = <$fh>;
  $timeout_seconds = $1 if defined $line && $line =~ /^(\d+)/;
  close($fh);
}

my $child = fork();
die "fork: $!" unless defined $child;
if ($child == 0) {
  write_file("$cgroup/system.slice/lnb-vm-job.service/cgroup.procs", "$$\n")
    or say_console("cannot enter system.slice/lnb-vm-job.service: $!");
  setsid();
  open(STDIN, '<', '/dev/null');
  open(STDOUT, '>', '/dev/ttyS1') or die "ttyS1: $!";
  open(STDERR, '>&', \*STDOUT);
  exec('/bin/sh', "$job/command.sh") or die "exec: $!";
}

# The host enforces the deadline too; this one makes an orphaned QEMU end by itself.
my $status;
local $SIG{ALRM} = sub { say_console("job timed out after ${timeout_seconds}s"); $status = 124 << 8; };
alarm($timeout_seconds + 30);
while (!defined $status) {
  my $pid = waitpid(-1, 0);
  if ($pid == $child) { $status = $?; }
  elsif ($pid == -1 && !defined $status) { sleep 1; }
}
alarm(0);

my $code = WIFEXITED($status) ? WEXITSTATUS($status) : 128 + WTERMSIG($status);
# Nothing the job left running may hold the 9p export while we power off.
kill('KILL', -1);
1 while waitpid(-1, WNOHANG) > 0;
write_file("$job/exit-code", "$code\n") or say_console("cannot write the exit code: $!");
power_off();
