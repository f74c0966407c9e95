import { rm } from "node:fs/promises";
import type { GvisorPlatform } from "../../../generator/config/runtime-names.js";
import { runCommand } from "../../core/run-command.js";
import { SandboxError } from "../../core/errors.js";
import type { Runsc } from "./runsc.js";

/** What each runsc binary offers, asked once per process (`runsc help platforms`). */
const offered = new Map<string, Promise<string[]>>();
/** Whether kvm really runs a guest here, probed once per process. */
const kvmRuns = new Map<string, Promise<string | undefined>>();

/** The platforms this runsc was built with. */
export function offeredPlatforms(program: string): Promise<string[]> {
  let known = offered.get(program);
  if (known === undefined) {
    known = runCommand(program, ["help", "platforms"], { reject: false, timeoutMs: 10_000 }).then((result) =>
      result.stdout
        .split("\n")
        .map((line) => line.trim())
        .filter((line) => /^[a-z0-9]+$/.test(line)),
    );
    offered.set(program, known);
  }
  return known;
}

/**
 * Why kvm cannot run a guest here, or undefined when it can. A /dev/kvm is not proof: a
 * paravirtual one (kvm-pvm) opens and makes a VM whose first KVM_RUN never returns, so a real
 * sandbox is started (`runsc do true`), bounded in time.
 */
function kvmProblem(program: string, stateRoot: string): Promise<string | undefined> {
  let probe = kvmRuns.get(program);
  if (probe === undefined) {
    // A state root of its own, removed after: a probe killed at its deadline leaves its state behind.
    const root = `${stateRoot}-probe-${process.pid}`;
    const flags = [`--root=${root}`, "--platform=kvm", "--network=none", "--ignore-cgroups"];
    probe = runCommand(program, [...flags, "do", "true"], {
      reject: false,
      timeoutMs: 15_000,
    })
      .then(async (result) => {
        await rm(root, { recursive: true, force: true });
        return result;
      })
      .then((result) =>
        result.timedOut
          ? "a kvm guest did not run within 15 s here (a paravirtual /dev/kvm opens but never runs one)"
          : result.failed
            ? `runsc could not run a kvm guest here: ${result.stderr.trim().split("\n").pop() ?? "no reason given"}`
            : undefined,
      );
    kvmRuns.set(program, probe);
  }
  return probe;
}

/**
 * The platform a template's sandbox gets: "auto" takes systrap where this runsc has it, else
 * ptrace (kvm is never guessed: it must be asked for, and is probed); a platform asked for that
 * this runsc lacks, or kvm that does not run here, is refused with what to do.
 */
export async function choosePlatform(
  program: string,
  wanted: GvisorPlatform,
  stateRoot: string,
): Promise<Runsc["platform"]> {
  const platforms = await offeredPlatforms(program);
  if (wanted === "auto") {
    if (platforms.includes("systrap")) return "systrap";
    if (platforms.includes("ptrace")) return "ptrace";
    throw new SandboxError(
      `runsc offers neither systrap nor ptrace (it lists: ${platforms.join(", ") || "nothing"}): set gvisor.platform`,
      "usage",
    );
  }
  if (!platforms.includes(wanted))
    throw new SandboxError(
      `gvisor.platform "${wanted}" is not offered by this runsc (it has: ${platforms.join(", ")}): choose one of those, or "auto"`,
      "usage",
    );
  if (wanted === "kvm") {
    const problem = await kvmProblem(program, stateRoot);
    if (problem !== undefined)
      throw new SandboxError(`gvisor.platform "kvm": ${problem}; use "auto" (ptrace here)`, "usage");
  }
  return wanted;
}
