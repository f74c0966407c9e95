import type { Inside } from "../backend.js";

/** Inside a NixOS system (nspawn-nix, extra-container): NixOS's standard PATH. */
export const nixosInside: Inside = {
  path: (user) =>
    [
      ...(user === null ? [] : [`/etc/profiles/per-user/${user}/bin`]),
      "/run/wrappers/bin",
      "/run/current-system/sw/bin",
    ].join(":"),
  shell: "/run/current-system/sw/bin/bash",
};
