import { minimumIperf3Version } from "./iperf3-version.js";
import {
  iperf3FirstPort,
  iperf3PasswordParameter,
  iperf3PrivateKeyParameter,
  iperf3StatusParameter,
  iperf3Username,
  serverTagNames,
  tagKey,
  tagValue,
} from "./naming.js";

/**
 * Boot script of the iperf3 server: the same text for every deploy, so changing the
 * time-to-live, the ports or the idle timeout never changes UserData (which would stop and start
 * the instance without running user data again). Those three live in the instance's tags, which
 * CloudFormation updates in place; a watchdog timer reads them every minute through the instance
 * metadata service and applies them.
 *
 * A Fn::Sub string: `${AWS::Region}` is substituted by CloudFormation; shell variables are
 * written without braces. Idempotent (re-running it converges), with retries around every
 * network step (dnf, SSM), and "ready" is published only once each port answers an iperf3
 * handshake.
 */
export function serverUserData(): string {
  return `#!/bin/bash
# lambda-netbench iperf3 server. Idempotent: running it again converges to the same state.
set -uo pipefail
exec > >(tee -a /var/log/lambda-netbench-boot.log) 2>&1
retry() { local attempt; for attempt in 1 2 3 4 5 6 7 8; do "$@" && return 0; echo "retry $attempt: $*" >&2; sleep $((attempt * 5)); done; return 1; }
install -d -m 0750 -o root -g nobody /etc/lambda-netbench
# 1. the time-to-live first, so the instance ends itself even if everything below fails
cat > /usr/local/sbin/lambda-netbench-watchdog <<'WATCHDOG'
${watchdogScript()}WATCHDOG
chmod 0755 /usr/local/sbin/lambda-netbench-watchdog
cat > /etc/systemd/system/lambda-netbench-watchdog.service <<'UNIT'
[Unit]
Description=lambda-netbench: time-to-live, ports and readiness from the instance tags
[Service]
Type=oneshot
ExecStart=/usr/local/sbin/lambda-netbench-watchdog
UNIT
cat > /etc/systemd/system/lambda-netbench-watchdog.timer <<'UNIT'
[Unit]
Description=lambda-netbench watchdog every minute
[Timer]
OnBootSec=30s
OnUnitActiveSec=60s
AccuracySec=5s
[Install]
WantedBy=timers.target
UNIT
systemctl daemon-reload
systemctl enable --now lambda-netbench-watchdog.timer
# 2. iperf3 and its secrets (each step retried: the network or SSM may not be there yet)
retry dnf install -y iperf3 || { echo "dnf install iperf3 failed"; exit 1; }
# the port faces the internet: ${minimumIperf3Version} fixes CVE-2025-54349/54350 in the code that reads a client's first bytes
iperf3_version_ok() { [ "$(printf '%s\\n%s\\n' "${minimumIperf3Version}" "$1" | sort -V | head -n1)" = "${minimumIperf3Version}" ]; }
IPERF3_VERSION=$(iperf3 --version | head -n1 | cut -d' ' -f2)
if iperf3_version_ok "$IPERF3_VERSION"; then echo "iperf3 $IPERF3_VERSION: ${minimumIperf3Version} or later";
else echo "iperf3 $IPERF3_VERSION (the distribution's package) is older than ${minimumIperf3Version}, which fixes CVE-2025-54349/54350: deploy reports it"; fi
umask 027
fetch() { aws ssm get-parameter --region \${AWS::Region} --name "$1" --with-decryption --query Parameter.Value --output text; }
retry fetch ${iperf3PrivateKeyParameter} > /etc/lambda-netbench/iperf3-private.pem.new || { echo "cannot read the key"; exit 1; }
mv -f /etc/lambda-netbench/iperf3-private.pem.new /etc/lambda-netbench/iperf3-private.pem
PASSWORD=$(retry fetch ${iperf3PasswordParameter}) || { echo "cannot read the password"; exit 1; }
HASH=$(printf '{%s}%s' '${iperf3Username}' "$PASSWORD" | sha256sum | cut -d' ' -f1)
unset PASSWORD
printf '%s,%s\\n' '${iperf3Username}' "$HASH" > /etc/lambda-netbench/iperf3-users.csv
chgrp nobody /etc/lambda-netbench/iperf3-private.pem /etc/lambda-netbench/iperf3-users.csv
# 3. one server unit per port; the watchdog decides which ports run and with what idle timeout
cat > /etc/systemd/system/lambda-netbench-iperf3@.service <<'UNIT'
[Unit]
Description=lambda-netbench iperf3 server on port %i (RSA authentication)
After=network-online.target
[Service]
User=nobody
Group=nobody
EnvironmentFile=/etc/lambda-netbench/server.env
ExecStart=/usr/bin/iperf3 --server --port %i --idle-timeout $IDLE_TIMEOUT --rsa-private-key-path /etc/lambda-netbench/iperf3-private.pem --authorized-users-path /etc/lambda-netbench/iperf3-users.csv
Restart=always
RestartSec=1
UNIT
systemctl daemon-reload
touch /etc/lambda-netbench/installed
systemctl start lambda-netbench-watchdog.service
`;
}

/**
 * Runs every minute (and once at the end of boot): terminates the instance past the
 * `expires-at` tag (InstanceInitiatedShutdownBehavior=terminate), runs exactly the ports of the
 * `ports` tag with the `idle-timeout` tag, and publishes "ready" (with the instance id, so a
 * replaced instance never inherits an old status) once every port answers an iperf3 handshake:
 * our 37-byte cookie is answered by PARAM_EXCHANGE (9). Without readable tags for 10 minutes
 * (metadata tags off, IMDS broken) it shuts the instance down: a server nobody can bound must
 * not run on.
 */
function watchdogScript(): string {
  return `#!/bin/bash
set -uo pipefail
STATE=/etc/lambda-netbench
TOKEN=$(curl -sf -m 5 -X PUT -H 'X-aws-ec2-metadata-token-ttl-seconds: 300' http://169.254.169.254/latest/api/token)
tag() { curl -sf -m 5 -H "X-aws-ec2-metadata-token: $TOKEN" "http://169.254.169.254/latest/meta-data/tags/instance/$1"; }
EXPIRES=$(tag ${serverTagNames.expiresAt})
PORTS=$(tag ${serverTagNames.ports})
IDLE=$(tag ${serverTagNames.idleTimeoutSeconds})
if [ -z "$EXPIRES" ] || [ -z "$PORTS" ] || [ -z "$IDLE" ]; then
  MISSES=$(( $(cat $STATE/tag-misses 2>/dev/null || echo 0) + 1 )); echo $MISSES > $STATE/tag-misses
  if [ "$MISSES" -ge 10 ]; then logger -t lambda-netbench "tags unreadable for 10 minutes: shutting down"; shutdown -h now; fi
  exit 0
fi
echo 0 > $STATE/tag-misses
NOW=$(date -u +%s)
END=$(date -u -d "$EXPIRES" +%s 2>/dev/null || echo 0)
if [ "$NOW" -ge "$END" ]; then logger -t lambda-netbench "time-to-live reached ($EXPIRES): shutting down"; shutdown -h now; exit 0; fi
[ -f $STATE/installed ] || exit 0
FIRST=$(echo "$PORTS" | cut -d- -f1); LAST=$(echo "$PORTS" | cut -d- -f2)
printf 'IDLE_TIMEOUT=%s\\n' "$IDLE" > $STATE/server.env.new
if ! cmp -s $STATE/server.env.new $STATE/server.env; then
  mv -f $STATE/server.env.new $STATE/server.env; RESTART=1
else rm -f $STATE/server.env.new; RESTART=0; fi
for UNIT in $(systemctl list-units --plain --no-legend 'lambda-netbench-iperf3@*' | cut -d' ' -f1); do
  PORT=$(echo "$UNIT" | sed -e 's/.*@//' -e 's/\\.service$//')
  if [ "$PORT" -lt "$FIRST" ] || [ "$PORT" -gt "$LAST" ]; then systemctl disable --now "$UNIT"; fi
done
for PORT in $(seq "$FIRST" "$LAST"); do
  if [ "$RESTART" = 1 ]; then systemctl restart lambda-netbench-iperf3@$PORT.service; fi
  systemctl enable --now lambda-netbench-iperf3@$PORT.service
done
handshake() {
  timeout 5 bash -c 'exec 3<>/dev/tcp/127.0.0.1/'"$1"' || exit 1
    printf "lambdanetbenchreadinesscheck22222222\\0" >&3
    head -c 1 <&3 | od -An -tu1 | tr -d " "' 2>/dev/null
}
for PORT in $(seq "$FIRST" "$LAST"); do
  ANSWER=""
  for ATTEMPT in 1 2 3 4 5; do ANSWER=$(handshake "$PORT"); [ "$ANSWER" = 9 ] && break; sleep 2; done
  [ "$ANSWER" = 9 ] || { logger -t lambda-netbench "port $PORT does not answer an iperf3 handshake yet"; exit 0; }
done
INSTANCE=$(curl -sf -m 5 -H "X-aws-ec2-metadata-token: $TOKEN" http://169.254.169.254/latest/meta-data/instance-id)
if iperf3 --help 2>&1 | grep -q -- --use-pkcs1-padding; then PADDING=oaep; else PADDING=pkcs1; fi
VERSION=$(iperf3 --version | head -n1 | cut -d' ' -f2)
STATUS="{\\"version\\":\\"$VERSION\\",\\"padding\\":\\"$PADDING\\",\\"ports\\":\\"$PORTS\\",\\"idleTimeoutSeconds\\":$IDLE,\\"instanceId\\":\\"$INSTANCE\\"}"
[ "$(cat $STATE/published 2>/dev/null)" = "$STATUS" ] && exit 0
parameter_tags() {
  TAGS='{"Key":"${tagKey}","Value":"${tagValue}"}'
  for KEY in $(curl -sf -m 5 -H "X-aws-ec2-metadata-token: $TOKEN" http://169.254.169.254/latest/meta-data/tags/instance); do
    case "$KEY" in aws:*|Name|${tagKey}*) continue ;; esac
    TAGS="$TAGS,{\\"Key\\":\\"$KEY\\",\\"Value\\":\\"$(tag "$KEY")\\"}"
  done
  echo "[$TAGS]"
}
aws ssm put-parameter --region \${AWS::Region} --name ${iperf3StatusParameter} --type String --value "$STATUS" --tags "$(parameter_tags)" \\
  || { aws ssm put-parameter --region \${AWS::Region} --name ${iperf3StatusParameter} --type String --overwrite --value "$STATUS" && aws ssm add-tags-to-resource --region \${AWS::Region} --resource-type Parameter --resource-id ${iperf3StatusParameter} --tags "$(parameter_tags)"; } \\
  && echo "$STATUS" > $STATE/published
`;
}

/** The first port of the range, for callers that only know the count. */
export function portRange(ports: number): string {
  return `${iperf3FirstPort}-${iperf3FirstPort + ports - 1}`;
}
