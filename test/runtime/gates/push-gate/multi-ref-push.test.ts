import { describe, expect, it } from "vitest";
import { isRoot, toolsAvailable } from "../../../support/tools.js";
import { GateFixture } from "./gate-fixture.js";

const tools = toolsAvailable("git", "setpriv", "useradd", "userdel");

/** The porcelain line git prints for `ref` ("<flag>\t<from>:<to>\t<summary>"), or undefined. */
function porcelainLine(stdout: string, ref: string): string | undefined {
  return stdout.split("\n").find((line) => line.split("\t")[1]?.endsWith(`:${ref}`) === true);
}

/*
 * GIVEN the gate (gate-fixture.ts); WHEN the agent pushes several refs at once, THEN each ref is
 * asked on its own (the outbox's update hook) and git's own per-ref summary is true: an approved
 * ref shows ok and is upstream, a denied one shows rejected and is not.
 */
describe.skipIf(!tools.run || !isRoot())("a push of several refs through the gate", () => {
  const f = new GateFixture("m", 1);

  it("reports one ref ok and the other rejected when the user approves one and denies the other", async () => {
    const to = await f.commit("two.txt", "Two branches");
    f.desk.policy = (ask) =>
      ask.kind === "push" && ask.subject.ref === "refs/heads/approved" ? { decision: "once" } : { decision: "deny" };
    const pushed = await f.asAgent([
      "push",
      "--porcelain",
      "origin",
      "HEAD:refs/heads/approved",
      "HEAD:refs/heads/denied",
    ]);
    expect(porcelainLine(pushed.stdout, "refs/heads/approved")).toMatch(/^\*\t.*\t\[new branch\]$/);
    expect(porcelainLine(pushed.stdout, "refs/heads/denied")).toMatch(/^!\t.*\t\[remote rejected\] \(hook declined\)$/);
    expect(pushed.output).toContain(
      "remote: error: forage push gate: refs/heads/denied: denied by the user: not pushed",
    );
    expect(pushed.output).toContain("remote: forage push gate: refs/heads/approved: approved and pushed to origin");
    expect(pushed.status).not.toBe(0);
    expect(f.desk.asks.map((ask) => (ask.kind === "push" ? ask.subject.ref : ask.kind))).toEqual([
      "refs/heads/approved",
      "refs/heads/denied",
    ]);
    expect(f.has("refs/heads/approved")).toBe(to);
    expect(f.has("refs/heads/denied")).toBeNull();
  });

  it("reports both ok when both are approved, each pushed upstream", async () => {
    const to = await f.commit("both.txt", "Both branches");
    f.desk.policy = () => ({ decision: "once" });
    const pushed = await f.asAgent([
      "push",
      "--porcelain",
      "origin",
      "HEAD:refs/heads/first",
      "HEAD:refs/heads/second",
    ]);
    expect(pushed.status).toBe(0);
    expect(porcelainLine(pushed.stdout, "refs/heads/first")).toMatch(/^\*\t/);
    expect(porcelainLine(pushed.stdout, "refs/heads/second")).toMatch(/^\*\t/);
    expect([f.has("refs/heads/first"), f.has("refs/heads/second")]).toEqual([to, to]);
  });

  it("refuses the whole push, asking nothing, when one of its refs is refused outright", async () => {
    await f.commit("mixed.txt", "One protected");
    f.desk.policy = () => ({ decision: "once" });
    const before = f.has("refs/heads/main");
    const pushed = await f.asAgent(["push", "--porcelain", "origin", "HEAD:refs/heads/fine", "HEAD:refs/heads/main"]);
    expect(pushed.output).toContain("refused: main is a protected branch");
    expect(pushed.output).toContain("nothing was pushed to origin");
    expect(porcelainLine(pushed.stdout, "refs/heads/fine")).toMatch(
      /^!\t.*\[remote rejected\] \(pre-receive hook declined\)$/,
    );
    expect(f.desk.asks).toEqual([]);
    expect(f.has("refs/heads/fine")).toBeNull();
    expect(f.has("refs/heads/main")).toBe(before);
  });

  it("does not offer atomic pushes (an atomic push would report refs rejected that went upstream)", async () => {
    await f.commit("atomic.txt", "Atomic");
    f.desk.policy = () => ({ decision: "once" });
    const pushed = await f.asAgent([
      "push",
      "--atomic",
      "origin",
      "HEAD:refs/heads/atomic-a",
      "HEAD:refs/heads/atomic-b",
    ]);
    expect(pushed.status).not.toBe(0);
    expect(pushed.output).toContain("does not support --atomic");
    expect(f.desk.asks).toEqual([]);
    expect(f.has("refs/heads/atomic-a")).toBeNull();
  });
});
