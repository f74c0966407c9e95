# Builder of nixos-system.nix: copies host programs and every library they load into $out, and
# writes a wrapper per program that starts it through the copied loader (no /lib, /usr needed).
set -eu
mkdir -p "$out/bin" "$out/libexec" "$out/lib" "$out/sw/bin" "$out/etc" "$out/share/terminfo"
cp /bin/busybox "$out/bin/busybox"
loader=/lib64/ld-linux-x86-64.so.2
cp -L "$loader" "$out/lib/ld-linux-x86-64.so.2"
for program in $programs; do
  source=""
  for dir in /usr/bin /bin /usr/sbin /sbin; do [ -x "$dir/$program" ] && { source="$dir/$program"; break; }; done
  [ -n "$source" ] || { echo "stand-in system: the host has no $program" >&2; exit 1; }
  cp -L "$source" "$out/libexec/$program"
  ldd "$source" | awk '$2 == "=>" && $3 ~ /^\// { print $3 }' | while read -r library; do
    [ -e "$out/lib/$(basename "$library")" ] || cp -L "$library" "$out/lib/"
  done
  printf '#!%s sh\nTERMINFO_DIRS=%s LOCPATH=%s exec %s --argv0 %s --library-path %s %s "$@"\n' \
    "$out/bin/busybox" "$out/share/terminfo" "$out/lib/locale" "$out/lib/ld-linux-x86-64.so.2" "$program" "$out/lib" "$out/libexec/$program" > "$out/sw/bin/$program"
  chmod +x "$out/sw/bin/$program"
done
# The C.UTF-8 locale (tmux insists on UTF-8), found through LOCPATH as NixOS's LOCALE_ARCHIVE would.
mkdir -p "$out/lib/locale" && cp -r /usr/lib/locale/C.utf8 "$out/lib/locale/"
for entry in x/xterm x/xterm-256color s/screen s/screen-256color t/tmux t/tmux-256color d/dumb; do
  for dir in /lib/terminfo /usr/share/terminfo; do
    if [ -e "$dir/$entry" ]; then mkdir -p "$out/share/terminfo/${entry%/*}"; cp -L "$dir/$entry" "$out/share/terminfo/$entry"; fi
  done
done
printf 'root:x:0:0:root:/root:%s\n%s:x:%s:%s:Forage agent:/home/%s:%s\n' "$out/sw/bin/bash" "$user" "$uid" "$gid" "$user" "$out/sw/bin/bash" > "$out/etc/passwd"
printf 'root:x:0:\n%s:x:%s:\n' "$user" "$gid" > "$out/etc/group"
sed -e "s|@out@|$out|g" -e "s|@user@|$user|g" -e "s|@uid@|$uid|g" -e "s|@gid@|$gid|g" -e "s|@workspace@|$workspacePath|g" "$initScript" > "$out/init"
chmod +x "$out/init"
