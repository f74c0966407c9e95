import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { packageRoot } from "../../runtime/core/package-root.js";
import { backendNamed } from "../../runtime/backends/registry.js";
import { sandboxRuntimes } from "../../runtime/state/metadata.js";
import { cycles, folderOf, importEdges, loadedBy, packagesImported, sourceFiles } from "./import-graph.js";

/*
 * The direction of dependencies (ARCHITECTURE.md, "Three parts, one direction"): cli → runtime → generator, and inside
 * each, folders by rank: a file may import its own folder and folders of lower rank only. A
 * folder missing here fails the test, so every new folder is placed on purpose.
 */
const generatorRanks: Record<string, number> = {
  "generator/lib": 0, // pure helpers, importing nothing
  "generator/emit": 1, // the only producers of target-language text
  "generator/config": 2,
  "generator/model": 3,
  "generator/policy": 4, // pure policy the targets and the runtime share (the network's tables)
  "generator/targets": 5,
  "generator/output": 6,
  "generator/schema-export": 6,
  generator: 7, // generate.ts, index.ts: the generator's entry points
};
const runtimeRanks: Record<string, number> = {
  "runtime/core": 0, // errors, context, paths, process runner: uses nothing of the runtime
  "runtime/state": 1,
  "runtime/cgroups": 2,
  "runtime/mounts": 2, // host-side mounts into a sandbox: pinned binds, stand-ins, its tmpfs root
  "runtime/seccomp": 2,
  // The gates (runtime/gates/README.md): doors between a sandbox and the world that judge each request.
  "runtime/gates/shared": 1, // what every gate uses: agent-supplied text shown, its audit, special addresses
  "runtime/gates/approvals": 2, // the approvals queue: the one way a gate asks the human
  "runtime/gates/network": 3, // the network guard: DNS filter, name gate, host admissions
  "runtime/gates/ssh-agent": 3, // the sandbox's SSH agent on the host: keys stay here, each signature asked
  "runtime/gates/push-gate": 4, // gated git push: an outbox and hook on the host
  "runtime/gates/api-proxy": 4, // the API proxy: keys stay on the host, requests filtered
  "runtime/gates/mcp-gate": 3, // the MCP gate: tool servers' tokens stay on the host, each call judged
  "runtime/settings": 2,
  "runtime/logins": 3, // subscription logins kept on the host: the store, refreshes
  "runtime/context": 4, // what agents are told about their sandbox
  "runtime/workspaces": 3,
  "runtime/provision": 5, // what every backend gives a sandbox
  "runtime/backends": 6,
  "runtime/sandbox": 7, // the lifecycle, over the backends
  "runtime/api": 8,
  "runtime/daemon": 9,
  "runtime/service": 10, // the daemon as a systemd service: installs its unit, asks a daemon started by hand to step aside
};
/** What the runtime may use of the generator: its model, the pure policy layer and the layers below, never targets' internals. */
const generatorForRuntime = new Set([
  "generator/lib",
  "generator/emit",
  "generator/config",
  "generator/model",
  "generator/policy",
]);

const root = packageRoot();
const edges = importEdges(root);
const files = sourceFiles(root);
const area = (file: string): string => file.split("/")[0] ?? file;

describe("the import graph", () => {
  it("points one way between the three parts: cli → runtime → generator", () => {
    const order: Record<string, number> = { generator: 0, runtime: 1, cli: 2 };
    const against = edges
      .filter((e) => (order[area(e.to)] ?? 0) > (order[area(e.from)] ?? 0))
      .map((e) => `${e.from} → ${e.to}`);
    expect(against).toEqual([]);
  });

  it.each([
    ["generator", generatorRanks],
    ["runtime", runtimeRanks],
  ] as const)("points down the ranks of %s's folders, never sideways", (part, ranks) => {
    const folders = [...new Set(files.filter((f) => area(f) === part).map(folderOf))];
    expect(folders.filter((folder) => ranks[folder] === undefined)).toEqual([]);
    const against = edges
      .filter((e) => area(e.from) === part && area(e.to) === part && folderOf(e.from) !== folderOf(e.to))
      .filter((e) => (ranks[folderOf(e.to)] ?? Infinity) >= (ranks[folderOf(e.from)] ?? -1))
      .map((e) => `${e.from} → ${e.to}`);
    expect(against).toEqual([]);
  });

  it("lets the runtime use the generator's model, its pure policy and the layers below, never targets or output", () => {
    const against = edges
      .filter(
        (e) => area(e.from) === "runtime" && area(e.to) === "generator" && !generatorForRuntime.has(folderOf(e.to)),
      )
      .map((e) => `${e.from} → ${e.to}`);
    expect(against).toEqual([]);
  });

  it("keeps emit and lib free of the project: they import only themselves", () => {
    const against = edges
      .filter(
        (e) => ["generator/emit", "generator/lib"].includes(folderOf(e.from)) && folderOf(e.to) !== folderOf(e.from),
      )
      .map((e) => `${e.from} → ${e.to}`);
    expect(against).toEqual([]);
  });

  it("has no cycle of files, counting type-only imports too", () => {
    const graph = new Map<string, string[]>();
    for (const e of edges) graph.set(e.from, [...(graph.get(e.from) ?? []), e.to]);
    expect(cycles(files, graph)).toEqual([]);
  });

  it("loads no schema or config library in a command sent to the daemon (forage-ctl exec starts fast)", () => {
    for (const entry of ["cli/operations.ts", "cli/commands/inside.ts", "runtime/daemon/client.ts"]) {
      expect(
        [...packagesImported(root, loadedBy(entry, edges))].filter((p) =>
          ["zod", "yaml", "jiti", "ts-morph", "handlebars"].includes(p),
        ),
      ).toEqual([]);
    }
  });

  it("tests a runtime's name only in the backends (and where the names are declared), for every runtime the registry has", () => {
    // From the declared names, so a runtime added tomorrow is guarded the day it lands; each has its backend.
    expect(sandboxRuntimes.filter((name) => backendNamed(name) === undefined)).toEqual([]);
    const runtimeName = new RegExp(`"(${sandboxRuntimes.map((name) => name.replace(/[-]/g, "\\-")).join("|")})"`);
    expect(runtimeName.test('if (runtime === "extra-container")')).toBe(true); // control: a planted test is seen
    const named = files
      .filter((f) => area(f) !== "generator" && !f.startsWith("runtime/backends/") && f !== "runtime/state/metadata.ts")
      .filter((f) => runtimeName.test(readFileSync(join(root, f), "utf8")));
    expect(named).toEqual([]);
  });
});

/** A backend file's family: runtime/backends/<family>/…, "" for the interface and registry, "shared" for what families share. */
function familyOf(file: string): string | undefined {
  const parts = file.split("/");
  if (parts[0] !== "runtime" || parts[1] !== "backends") return undefined;
  return parts.length > 3 ? (parts[2] ?? "") : "";
}

/** Imports that break "backends as peers" (ARCHITECTURE.md): one family into another, shared into a family, the interface into an implementation. */
function peerViolations(graph: readonly { from: string; to: string }[]): string[] {
  return graph
    .filter((e) => {
      const from = familyOf(e.from);
      const to = familyOf(e.to);
      // From outside the backends: the interface and the registry only.
      if (from === undefined) return to !== undefined && to !== "";
      if (to === undefined || from === to) return false;
      if (from === "") return e.from !== "runtime/backends/registry.ts" && to !== ""; // only the registry knows the families
      if (to === "") return e.to !== "runtime/backends/backend.ts"; // the interface, never the registry
      return to !== "shared"; // a family uses shared parts, never another family; shared uses no family
    })
    .map((e) => `${e.from} → ${e.to}`);
}

describe("backends as peers", () => {
  it("keeps each runtime family in its own folder, importing only shared parts and the interface, never another family", () => {
    expect(peerViolations(edges)).toEqual([]);
  });

  it("has one folder per family, and every runtime's backend lives in its family's folder, named for the runtime", () => {
    for (const name of sandboxRuntimes) {
      const file = files.find((f) => f.startsWith("runtime/backends/") && f.endsWith(`/${name}-backend.ts`));
      expect(file, `runtime ${name} has no ${name}-backend.ts`).toBeDefined();
      expect(["", "shared"]).not.toContain(familyOf(file ?? ""));
    }
  });

  it("sees a planted violation (controls)", () => {
    expect(
      peerViolations([
        { from: "runtime/backends/extra-container/x.ts", to: "runtime/backends/nspawn/nspawn-backend.ts" },
        { from: "runtime/backends/shared/y.ts", to: "runtime/backends/nspawn/container-process.ts" },
        { from: "runtime/backends/nspawn/z.ts", to: "runtime/backends/registry.ts" },
        { from: "runtime/backends/nspawn/z.ts", to: "runtime/backends/shared/nspawn-leader.ts" },
        { from: "runtime/backends/registry.ts", to: "runtime/backends/nspawn/nspawn-backend.ts" },
        { from: "runtime/sandbox/up.ts", to: "runtime/backends/gvisor/runsc.ts" },
        { from: "runtime/api/x.ts", to: "runtime/backends/shared/host-root-layout.ts" },
        { from: "runtime/sandbox/up.ts", to: "runtime/backends/registry.ts" },
      ]),
    ).toEqual([
      "runtime/backends/extra-container/x.ts → runtime/backends/nspawn/nspawn-backend.ts",
      "runtime/backends/shared/y.ts → runtime/backends/nspawn/container-process.ts",
      "runtime/backends/nspawn/z.ts → runtime/backends/registry.ts",
      "runtime/sandbox/up.ts → runtime/backends/gvisor/runsc.ts",
      "runtime/api/x.ts → runtime/backends/shared/host-root-layout.ts",
    ]);
  });

  it("leaves entry to the backends: nothing above them reads a sandbox's PID 1 or builds forage-enter's argv", () => {
    const above = files.filter((f) => area(f) === "runtime" && !f.startsWith("runtime/backends/"));
    const against = edges
      .filter((e) => above.includes(e.from) && e.from !== "runtime/seccomp/exec-args.ts")
      .filter((e) => e.to === "runtime/seccomp/exec-args.ts" || e.to === "runtime/backends/shared/nspawn-leader.ts")
      .filter((e) => !e.typeOnly)
      .map((e) => `${e.from} → ${e.to}`);
    expect(against).toEqual([]);
  });
});

/** A gate file's folder: runtime/gates/<gate>/…; undefined outside the gates. */
function gateOf(file: string): string | undefined {
  const parts = file.split("/");
  return parts[0] === "runtime" && parts[1] === "gates" && parts.length > 3 ? parts[2] : undefined;
}

/** What a gate shares with the others: the one way to ask (the queue), to audit and to show agent text. */
const gateCommons = new Set(["approvals", "shared"]);

/** Imports that break "gates as a family" (ARCHITECTURE.md): one gate into another; the commons into a gate. */
function gateViolations(graph: readonly { from: string; to: string }[]): string[] {
  return graph
    .filter((e) => {
      const from = gateOf(e.from);
      const to = gateOf(e.to);
      if (from === undefined || to === undefined || from === to) return false;
      if (to === "shared") return false;
      return !(to === "approvals" && from !== "shared");
    })
    .map((e) => `${e.from} → ${e.to}`);
}

describe("gates as a family", () => {
  it("keeps each gate in its own folder under runtime/gates, importing only the approvals queue and shared parts, never another gate", () => {
    expect(gateViolations(edges)).toEqual([]);
    const gates = [...new Set(files.map(gateOf).filter((gate) => gate !== undefined))].sort();
    expect(gates.filter((gate) => !gateCommons.has(gate))).toEqual([
      "api-proxy",
      "mcp-gate",
      "network",
      "push-gate",
      "ssh-agent",
    ]);
  });

  it("records a gate's judgements through gate-audit.ts only: no gate writes the audit log itself", () => {
    const against = edges
      .filter((e) => gateOf(e.from) !== undefined && !gateCommons.has(gateOf(e.from) ?? ""))
      .filter((e) => e.to === "runtime/core/audit-log.ts" && !e.typeOnly)
      // A policy change is the network operation's own event, not a gate's judgement.
      .filter((e) => e.from !== "runtime/gates/network/sandbox-network.ts")
      .map((e) => `${e.from} → ${e.to}`);
    expect(against).toEqual([]);
  });

  it("sees a planted violation (controls)", () => {
    expect(
      gateViolations([
        { from: "runtime/gates/api-proxy/x.ts", to: "runtime/gates/network/special-addresses.ts" },
        { from: "runtime/gates/shared/y.ts", to: "runtime/gates/approvals/approval.ts" },
        { from: "runtime/gates/shared/y.ts", to: "runtime/gates/push-gate/outbox.ts" },
        { from: "runtime/gates/push-gate/z.ts", to: "runtime/gates/approvals/approval.ts" },
        { from: "runtime/gates/push-gate/z.ts", to: "runtime/gates/shared/gate-audit.ts" },
        { from: "runtime/gates/approvals/q.ts", to: "runtime/gates/shared/agent-text.ts" },
        { from: "runtime/gates/approvals/q.ts", to: "runtime/gates/ssh-agent/wire.ts" },
      ]),
    ).toEqual([
      "runtime/gates/api-proxy/x.ts → runtime/gates/network/special-addresses.ts",
      "runtime/gates/shared/y.ts → runtime/gates/approvals/approval.ts",
      "runtime/gates/shared/y.ts → runtime/gates/push-gate/outbox.ts",
      "runtime/gates/approvals/q.ts → runtime/gates/ssh-agent/wire.ts",
    ]);
  });
});

describe("the graph reader itself (controls)", () => {
  it("sees a known import, a type-only one and a lazy one", () => {
    expect(edges).toContainEqual({
      from: "runtime/sandbox/up.ts",
      to: "runtime/core/errors.ts",
      typeOnly: false,
      lazy: false,
    });
    expect(edges.some((e) => e.from === "runtime/api/operations.ts" && e.typeOnly)).toBe(true);
    expect(
      edges.some((e) => e.from === "cli/operations.ts" && e.lazy && e.to === "runtime/api/local-operations.ts"),
    ).toBe(true);
  });

  it("finds a cycle when there is one", () => {
    const graph = new Map([
      ["a", ["b"]],
      ["b", ["c"]],
      ["c", ["a"]],
      ["d", ["a"]],
    ]);
    expect(cycles(["a", "b", "c", "d"], graph)).toEqual([["a", "b", "c"]]);
  });

  it("follows what loads with a module: the in-process operations bring zod", () => {
    expect(packagesImported(root, loadedBy("runtime/api/local-operations.ts", edges)).has("zod")).toBe(true);
  });
});
