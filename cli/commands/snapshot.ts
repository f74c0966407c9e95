import type { Command } from "commander";
import { operationsOf } from "../operations.js";
import { printJson, printTable } from "../output.js";

/** snapshot create|list|restore: named captures of a sandbox's working copy. */
export function registerSnapshot(program: Command): void {
  const operations = () => operationsOf(program);
  const snapshot = program
    .command("snapshot")
    .description("Capture and restore a sandbox's working copy (jj workspace or git worktree)")
    .addHelpText(
      "after",
      `
A snapshot is a commit kept under a name: for jj a duplicate of the sandbox workspace's @
(bookmark forage-snapshot/SANDBOX/NAME), for git the worktree's files, untracked ones included
(ref refs/forage/snapshots/SANDBOX/NAME). Restoring puts the files back; history and branches
are not changed. down deletes a sandbox's snapshots.

Example:
  forage-ctl snapshot create fix-42 before-refactor
  forage-ctl snapshot restore fix-42 before-refactor`,
    );

  snapshot
    .command("create")
    .description("Capture the working copy now")
    .argument("<sandbox>")
    .argument("[name]", "snapshot name (default: snap-YYYYMMDD-HHMMSS)")
    .option("--json", "print as JSON")
    .action(async (sandbox: string, name: string | undefined, options: { json?: boolean }) => {
      const chosen = name ?? `snap-${new Date().toISOString().replace(/[-:]/g, "").replace("T", "-").slice(0, 15)}`;
      const [created] = await (
        await operations()
      ).snapshot({ name: sandbox, action: { kind: "create", snapshot: chosen } });
      if (options.json === true) return printJson(created);
      process.stdout.write(`snapshot ${chosen} of ${sandbox}: ${created?.commit.slice(0, 12) ?? ""}\n`);
    });

  snapshot
    .command("list")
    .description("List a sandbox's snapshots: NAME COMMIT CREATED")
    .argument("<sandbox>")
    .option("--json", "print as JSON")
    .action(async (sandbox: string, options: { json?: boolean }) => {
      const snapshots = await (await operations()).snapshot({ name: sandbox, action: { kind: "list" } });
      if (options.json === true) return printJson(snapshots);
      printTable(
        ["NAME", "COMMIT", "CREATED"],
        snapshots.map((s) => [s.name, s.commit.slice(0, 12), s.createdAt]),
      );
    });

  snapshot
    .command("restore")
    .description("Put a snapshot's files back in the sandbox's working copy")
    .argument("<sandbox>")
    .argument("<name>")
    .action(async (sandbox: string, name: string) => {
      await (await operations()).snapshot({ name: sandbox, action: { kind: "restore", snapshot: name } });
      process.stdout.write(`restored ${name} in ${sandbox}\n`);
    });
}
