import { runCommand } from "../core/run-command.js";
import { identitySchema } from "../../generator/config/schema/identity.js";

/**
 * The host user's own git identity (user.name / user.email from ~/.gitconfig or
 * ~/.config/git/config), the lowest level of the identity precedence: host VCS config < host
 * agentIdentity < template < CLI flags. Includes are not followed; values that would not pass
 * the config's own checks are ignored, as is a host without git.
 */
export async function hostGitIdentity(account: { home: string; uid: number; gid: number }): Promise<{ gitUser?: string; gitEmail?: string }> {
  const { home } = account;
  const read = async (key: string): Promise<string | undefined> => {
    for (const file of [`${home}/.gitconfig`, `${home}/.config/git/config`]) {
      // As the user: their files are read with their rights, never root's.
      const result = await runCommand("git", ["config", "--file", file, "--get", key], {
        uid: account.uid,
        gid: account.gid,
        cwd: "/",
        reject: false,
        timeoutMs: 5000,
        env: { PATH: "/usr/bin:/bin" },
      }).catch(() => undefined);
      if (result?.exitCode === 0 && result.stdout !== "") return result.stdout;
    }
    return undefined;
  };
  const [gitUser, gitEmail] = await Promise.all([read("user.name"), read("user.email")]);
  const user = identitySchema.shape.gitUser.safeParse(gitUser);
  const email = identitySchema.shape.gitEmail.safeParse(gitEmail);
  return {
    ...(user.success && user.data !== undefined ? { gitUser: user.data } : {}),
    ...(email.success && email.data !== undefined ? { gitEmail: email.data } : {}),
  };
}
