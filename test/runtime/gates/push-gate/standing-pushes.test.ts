import { describe, expect, it } from "vitest";
import { readMetadata } from "../../../../runtime/state/metadata-store.js";
import { isRoot, toolsAvailable } from "../../../support/tools.js";
import { GateFixture } from "./gate-fixture.js";

const tools = toolsAvailable("git", "setpriv", "useradd", "userdel", "flock");

/*
 * GIVEN the gate on a user's repository and an agent's clone, with the sandbox's metadata where
 * an --always is kept; WHEN the human approves a push --always or --for a while, THEN later
 * fast-forwards of that ref at that URL go unasked (for as long as the flag said), and nothing
 * else does.
 */
describe.skipIf(!tools.run || !isRoot())("pushes approved beyond their request, with real git", () => {
  const f = new GateFixture("s", 3, { standing: true });
  const { desk } = f;

  it("keeps a push approved --always in the sandbox's metadata, and pushes the next fast-forward of that ref unasked", async () => {
    await f.commit("one.txt", "First of the branch");
    desk.policy = () => ({ decision: "always" });
    expect((await f.asAgent(["push", "origin", "HEAD:refs/heads/topic"])).status).toBe(0);
    expect(desk.asks).toHaveLength(1);
    expect((await readMetadata(f.paths, "pushy"))?.pushGate?.alwaysPushed).toEqual([
      { url: f.upstream, ref: "refs/heads/topic" },
    ]);
    const to = await f.commit("two.txt", "Second of the branch");
    desk.policy = () => ({ decision: "deny" });
    const pushed = await f.asAgent(["push", "origin", "HEAD:refs/heads/topic"]);
    expect(pushed.status).toBe(0);
    expect(pushed.output).toContain("refs/heads/topic: pushed to origin as");
    expect(pushed.output).toContain("without asking: approved --always for this ref");
    expect(desk.asks).toHaveLength(1);
    expect(f.has("refs/heads/topic")).toBe(to);
    expect(f.records).toEqual([
      expect.stringMatching(
        /^origin refs\/heads\/topic [0-9a-f]{12}\.\.[0-9a-f]{12} \(.*upstream\.git\): pushed without asking \(approved --always for this ref\)$/,
      ),
    ]);
  });

  it("asks for any other ref, and for the same ref once the user's remote pushes to another URL", async () => {
    desk.policy = () => ({ decision: "deny" });
    expect((await f.asAgent(["push", "origin", "HEAD:refs/heads/other"])).status).not.toBe(0);
    const elsewhere = f.bareRepository("elsewhere.git");
    const before = f.has("refs/heads/topic", elsewhere);
    f.asUser(["-C", f.userRepo, "remote", "set-url", "--push", "origin", elsewhere]);
    try {
      // The gate reads the user's remotes again when the push arrives: origin is another URL now.
      await f.commit("three.txt", "Third of the branch");
      expect((await f.asAgent(["push", f.gateUrl("origin"), "HEAD:refs/heads/topic"])).status).not.toBe(0);
    } finally {
      f.asUser(["-C", f.userRepo, "config", "--unset", "remote.origin.pushurl"]);
      await f.gate?.refresh();
    }
    expect(desk.asks.map((ask) => (ask.kind === "push" ? [ask.subject.ref, ask.subject.url] : []))).toEqual([
      ["refs/heads/other", f.upstream],
      ["refs/heads/topic", elsewhere],
    ]);
    expect(f.has("refs/heads/topic", elsewhere)).toBe(before);
  });

  it("never covers what the gate refuses outright: a force push of the ref approved --always", async () => {
    const before = f.has("refs/heads/topic");
    // Behind the upstream's topic (the third commit was never pushed): the new one is no fast-forward.
    expect((await f.asAgent(["reset", "-q", "--hard", "HEAD~2"])).status).toBe(0);
    await f.commit("rewritten.txt", "Rewritten");
    const pushed = await f.asAgent(["push", "--force", "origin", "HEAD:refs/heads/topic"]);
    expect(pushed.output).toContain("refused: not a fast-forward");
    expect(f.has("refs/heads/topic")).toBe(before);
    expect(desk.asks).toEqual([]);
  });

  it("pushes a ref approved --for a while unasked until the time is up, and asks again after it", async () => {
    await f.commit("timed-1.txt", "Timed one");
    desk.policy = () => ({ decision: "for", untilMs: Date.now() + 4000 });
    expect((await f.asAgent(["push", "origin", "HEAD:refs/heads/timed"])).status).toBe(0);
    await f.commit("timed-2.txt", "Timed two");
    desk.policy = () => ({ decision: "deny" });
    const within = await f.asAgent(["push", "origin", "HEAD:refs/heads/timed"]);
    expect(within.output).toMatch(/without asking: approved --for this ref until \d{4}-/);
    expect(desk.asks).toHaveLength(1);
    expect((await readMetadata(f.paths, "pushy"))?.pushGate?.alwaysPushed?.map((each) => each.ref)).toEqual([
      "refs/heads/topic",
    ]);
    await new Promise((resolve) => setTimeout(resolve, 4100));
    const before = f.has("refs/heads/timed");
    await f.commit("timed-3.txt", "Timed three");
    const after = await f.asAgent(["push", "origin", "HEAD:refs/heads/timed"]);
    expect(after.output).toContain("denied by the user");
    expect(desk.asks).toHaveLength(2);
    expect(f.has("refs/heads/timed")).toBe(before);
  }, 30_000);
});
