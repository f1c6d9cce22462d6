#!/usr/bin/env bash
# Starts a stand-in remote host for GNU parallel's --sshlogin: sshd on
# 127.0.0.1 whose sessions see an empty folder of their own at HIDE (a mount
# namespace binds another folder over it), so a job cannot reach the local
# side's files there, as on another machine. Prints the PARALLEL_SSH command
# and the sshlogin, one per line; exits 3 when this machine cannot do it
# (no sshd, rsync or unshare), so the caller can skip.
#   ssh-host.sh DIR HIDE BIN      DIR: state (keys, config); BIN: ib on the host's PATH
set -uo pipefail
dir=$1 hide=$2 bin=$3
command -v /usr/sbin/sshd >/dev/null && command -v rsync >/dev/null && unshare -m true 2>/dev/null || exit 3
mkdir -p "$dir" "$dir/elsewhere"
ssh-keygen -q -t ed25519 -N "" -f "$dir/key" && ssh-keygen -q -t ed25519 -N "" -f "$dir/hostkey" || exit 3
cp "$dir/key.pub" "$dir/authorized_keys"
cat > "$dir/session" <<SESSION
#!/bin/sh
exec unshare -m sh -c 'mount --bind "$dir/elsewhere" "$hide" && PATH="$bin:\$PATH" && export PATH && cd && exec /bin/sh -c "\$SSH_ORIGINAL_COMMAND"'
SESSION
chmod +x "$dir/session"
port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
cat > "$dir/sshd_config" <<CONFIG
Port $port
ListenAddress 127.0.0.1
HostKey $dir/hostkey
AuthorizedKeysFile $dir/authorized_keys
StrictModes no
PermitRootLogin prohibit-password
PasswordAuthentication no
UsePAM no
PidFile $dir/sshd.pid
ForceCommand $dir/session
CONFIG
mkdir -p /run/sshd
/usr/sbin/sshd -f "$dir/sshd_config" -E "$dir/sshd.log" || exit 3
ssh_cmd="ssh -p $port -i $dir/key -o StrictHostKeyChecking=no -o UserKnownHostsFile=/dev/null -o LogLevel=ERROR -o BatchMode=yes"
for _ in 1 2 3 4 5 6 7 8 9 10; do
  $ssh_cmd "$(id -un)@127.0.0.1" true 2>/dev/null && { echo "$ssh_cmd"; echo "1/$(id -un)@127.0.0.1"; exit 0; }
  sleep 0.3
done
exit 3
