import { afterAll, describe, it } from "vitest";
import { TestHost } from "./harness.js";

describe("scratch", () => {
  const host = new TestHost("10.202", "nobody", "", "", { runtime: "gvisor" });
  afterAll(() => host.cleanup());
  it("looks", async () => {
    const up = await host.run(["up", "m", "-t", "basic", "-w", host.workspace("m")]);
    console.log(up.exitCode, up.stderr);
    console.log(await host.run(["exec", "m", "--", "bash", "-c", "ulimit -u 20; ulimit -Hu; n=0; for i in $(seq 40); do sleep 30 & n=$((n+1)); done 2>&1 | tail -2; ls /proc | grep -c '^[0-9]'"]));
  }, 120_000);
});
