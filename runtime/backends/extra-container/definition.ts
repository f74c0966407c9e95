import { n, renderNixFile, type NixExpr } from "../../../generator/emit/nix/index.js";

/** What one sandbox's extra-container definition says. */
export interface DefinitionInput {
  /** Sandbox name, for the file's header. */
  sandbox: string;
  template: string;
  /** Directory of `forage-ctl generate`'s output on the host (holds containers/<template>.nix). */
  generatedDir: string;
  /** Directory of Forage's NixOS modules on the host (holds container/). */
  modulesDir: string;
  containerName: string;
  hostAddress: string;
  localAddress: string;
  /** The link's IPv6 ends: the guard listens on the host's, and the policy covers both families. */
  hostAddress6: string;
  localAddress6: string;
  uid: number;
  gid: number;
  workspace: string;
  secretsDir: string | null;
  /** More bind mounts: container path → host path and whether it is read-only. */
  extraBindMounts: Record<string, { hostPath: string; readOnly: boolean }>;
}

/**
 * The per-sandbox file `extra-container create` evaluates: the template's generated container
 * definition (`containers/<template>.nix`) called with this sandbox's name, addresses and mounts.
 * Every value is data (strings and numbers through the Nix emitter); absolute host paths are
 * imported as strings because Nix path literals cannot be absolute in the emitter.
 *
 * @example
 * (import "/etc/forage/generated/containers/claude.nix" {
 *   forage = { nixosModules = { container = import "/etc/forage/modules/container"; }; };
 *   uid = 1000; gid = 100;
 * }).extraContainer { name = "f3"; hostAddress = "10.100.3.1"; … }
 */
export function extraContainerDefinition(input: DefinitionInput): string {
  const definition = n.call(
    n.v("import"),
    n.str(`${input.generatedDir}/containers/${input.template}.nix`),
    n.attrs({
      forage: n.attrs({
        nixosModules: n.attrs({ container: n.call(n.v("import"), n.str(`${input.modulesDir}/container`)) }),
      }),
      uid: n.int(input.uid),
      gid: n.int(input.gid),
    }),
  );
  const binds: Record<string, NixExpr> = {};
  for (const [target, bind] of Object.entries(input.extraBindMounts).sort(([a], [b]) => a.localeCompare(b))) {
    binds[target] = n.attrs({ hostPath: n.str(bind.hostPath), isReadOnly: n.bool(bind.readOnly) });
  }
  const args = n.attrs({
    name: n.str(input.containerName),
    hostAddress: n.str(input.hostAddress),
    localAddress: n.str(input.localAddress),
    hostAddress6: n.str(input.hostAddress6),
    localAddress6: n.str(input.localAddress6),
    workspace: n.str(input.workspace),
    secretsDir: input.secretsDir === null ? n.nul : n.str(input.secretsDir),
    extraBindMounts: n.attrs(binds),
  });
  return renderNixFile(`sandbox ${input.sandbox}`, n.call(n.sel(definition, "extraContainer"), args));
}
