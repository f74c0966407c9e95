import { describe, expect, it } from "vitest";
import { protectedRefsOf } from "../../../../runtime/gates/push-gate/push-policy.js";
import { isRoot, toolsAvailable } from "../../../support/tools.js";
import { GateFixture } from "./gate-fixture.js";

const tools = toolsAvailable("git", "setpriv", "useradd", "userdel");

describe("the branches the gate protects", () => {
  it("protects the upstream's default branch, main and master when the template names none", () => {
    expect(protectedRefsOf(null, "refs/heads/trunk")).toEqual([
      "refs/heads/main",
      "refs/heads/master",
      "refs/heads/trunk",
    ]);
    expect(protectedRefsOf(null, "refs/heads/main")).toEqual(["refs/heads/main", "refs/heads/master"]);
    expect(protectedRefsOf(null, null)).toEqual(["refs/heads/main", "refs/heads/master"]);
  });

  it("protects exactly the template's list when it names one, the defaults not added", () => {
    expect(protectedRefsOf(["release", "refs/heads/stable"], "refs/heads/main")).toEqual([
      "refs/heads/release",
      "refs/heads/stable",
    ]);
  });
});

/*
 * GIVEN the gate (gate-fixture.ts) and remotes the user adds to the repository: a fresh bare one
 * (git init --bare -b master, nothing pushed yet: its HEAD names master, and ls-remote shows no
 * HEAD at all) and one whose HEAD is trunk; WHEN the agent pushes to their main, master or
 * default branch, THEN the gate refuses outright, asking nobody; another branch is asked about.
 */
describe.skipIf(!tools.run || !isRoot())("the push gate's default protection, with real git", () => {
  const f = new GateFixture("p", 3);
  let fresh = "";

  it("refuses a push to main on a fresh bare remote whose HEAD names master, asking nobody", async () => {
    fresh = `${f.home}/fresh.git`;
    f.asUser(["init", "-q", "--bare", "-b", "master", fresh]);
    f.asUser(["-C", f.userRepo, "remote", "add", "fresh", fresh]);
    await f.commit("fresh.txt", "For the fresh remote");
    f.desk.policy = () => ({ decision: "once" });
    for (const branch of ["main", "master"]) {
      const pushed = await f.asAgent(["push", f.gateUrl("fresh"), `HEAD:refs/heads/${branch}`]);
      expect(pushed.output).toContain(`refused: ${branch} is a protected branch`);
      expect(f.has(`refs/heads/${branch}`, fresh)).toBeNull();
    }
    expect(f.desk.asks).toEqual([]);
  });

  it("asks for another branch there, showing all it brings: a diffstat from the empty tree, not the last commit's", async () => {
    await f.commit("more.txt", "More for it");
    f.desk.policy = () => ({ decision: "once" });
    const pushed = await f.asAgent(["push", f.gateUrl("fresh"), "HEAD:refs/heads/feature"]);
    expect(pushed.output).toContain("approved and pushed to fresh");
    const [ask] = f.desk.asks;
    const subject = ask?.kind === "push" ? ask.subject : undefined;
    // The upstream's first commit and the agent's two: the fresh remote has none of them.
    expect([subject?.from, subject?.commitCount, subject?.commits.map((line) => line.replace(/^\S+ /, ""))]).toEqual([
      null,
      3,
      ["first", "For the fresh remote", "More for it"],
    ]);
    expect(subject?.diffstat).toBe(" fresh.txt | 1 +\n more.txt  | 1 +\n 2 files changed, 2 insertions(+)");
  });

  it("refuses a push to the default branch of a remote whose HEAD names another branch, and to main there too", async () => {
    const other = f.bareRepository("trunk.git");
    f.asUser(["--git-dir", other, "branch", "-m", "main", "trunk"]);
    f.asUser(["-C", f.userRepo, "remote", "add", "trunk", other]);
    f.desk.policy = () => ({ decision: "once" });
    for (const branch of ["trunk", "main"]) {
      const pushed = await f.asAgent(["push", f.gateUrl("trunk"), `HEAD:refs/heads/${branch}`]);
      expect(pushed.output).toContain(`refused: ${branch} is a protected branch`);
    }
    expect(f.desk.asks).toEqual([]);
  });
});

/* The template's list is authoritative: with protectedBranches [release], main is the human's to answer. */
describe.skipIf(!tools.run || !isRoot())(
  "the push gate with the template's own protected branches, with real git",
  () => {
    const f = new GateFixture("q", 4, { protectedBranches: ["release"] });

    it("refuses release, and asks for main instead of refusing it", async () => {
      await f.commit("listed.txt", "Listed");
      f.desk.policy = () => ({ decision: "deny" });
      expect((await f.asAgent(["push", "origin", "HEAD:refs/heads/release"])).output).toContain(
        "refused: release is a protected branch",
      );
      expect(f.desk.asks).toEqual([]);
      expect((await f.asAgent(["push", "origin", "HEAD:refs/heads/main"])).output).toContain("denied by the user");
      expect(f.desk.asks).toMatchObject([{ kind: "push", subject: { ref: "refs/heads/main" } }]);
    });
  },
);
