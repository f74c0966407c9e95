#!@out@/bin/busybox sh
# PID 1 of the stand-in system: in brief, what NixOS's stage 2 and systemd do in a Forage
# sandbox — /etc and /run/current-system in place, the agent's tmux session (forage-session.service,
# under the sandbox's seccomp filter),
# halt on SIGRTMIN+3 (systemd's signal, which systemd-nspawn --kill-signal sends).
bb=@out@/bin/busybox
$bb mkdir -p /etc /run /tmp /bin /home/@user@ /usr/bin
$bb chmod 1777 /tmp
$bb ln -sfn @out@ /run/current-system
$bb ln -sfn @out@/sw/bin/sh /bin/sh
$bb ln -sfn @out@/sw/bin/env /usr/bin/env
$bb cp @out@/etc/passwd @out@/etc/group /etc/
$bb chown @uid@:@gid@ /home/@user@
# forage-session.service's ExecStartPre: the home seed (identity, stand-in logins, context links)
# first; it and ExecStart run under the sandbox's filter through forage-enter, as the service's do
# (modules/lib/sandbox-entry.nix).
enter="/run/forage/enter /run/forage/seccomp.bpf"
if [ -d /run/secrets/_home ]; then @out@/sw/bin/setpriv --reuid=@uid@ --regid=@gid@ --clear-groups -- $enter $bb cp -r /run/secrets/_home/. /home/@user@/; fi
@out@/sw/bin/setpriv --reuid=@uid@ --regid=@gid@ --clear-groups -- @out@/sw/bin/env -i HOME=/home/@user@ PATH=@out@/sw/bin TERM=xterm-256color LANG=C.UTF-8 \
  $enter @out@/sw/bin/tmux new-session -d -s forage -n agent -c @workspace@
halt() { $bb echo "stand-in init: halting"; exit 0; }
trap halt 37
while :; do $bb sleep 1 & wait $!; done
