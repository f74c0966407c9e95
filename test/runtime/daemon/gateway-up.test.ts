import { describe, expect, it } from "vitest";
import { requireGatewayUp } from "../../../runtime/daemon/gateway-socket.js";

/** What the SSH gateway's account may not ask of `up` (the configured user here: root, home /root). */
describe("an up through the gateway account", () => {
  it("refuses an SSH key: the user's private key would be copied into a sandbox the key holder attaches to", async () => {
    await expect(requireGatewayUp({ sshKeyPath: "/root/.ssh/id_ed25519" }, "root")).rejects.toThrow(
      "may not give a sandbox an SSH key",
    );
  });

  it("refuses an SSH agent's keys and the caller's agent: they would sign for the key holder's sandbox", async () => {
    await expect(requireGatewayUp({ sshAgent: ["/root/.ssh/id_ed25519"] }, "root")).rejects.toThrow(
      "may not give a sandbox an SSH agent",
    );
    await expect(requireGatewayUp({ sshAuthSock: "/tmp/ssh-x/agent.1" }, "root")).rejects.toThrow(
      "may not give a sandbox an SSH agent",
    );
  });

  it("refuses a network mode of its choosing: the gateway may not widen what the template allows", async () => {
    await expect(requireGatewayUp({ network: "full" }, "root")).rejects.toThrow("may not choose a sandbox's network");
  });

  it.each(["/root", "/root/", "/"])("refuses %s as a workspace: it holds the user's whole home", async (path) => {
    await expect(requireGatewayUp({ workspace: path }, "root")).rejects.toThrow("holds root's whole home");
    await expect(requireGatewayUp({ repos: { docs: path } }, "root")).rejects.toThrow("holds root's whole home");
  });

  it("takes a project directory, and a name that only starts like the home", async () => {
    await expect(
      requireGatewayUp({ workspace: "/root/src/project", repo: "/rootfs" }, "root"),
    ).resolves.toBeUndefined();
  });
});
