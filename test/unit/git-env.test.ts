// lib/git/git.ts's environment: every program a configuration can name is blanked by a variable, which git reads at the
// command line's scope (over every file), and no transport, lazy fetch or configuration file of the user reaches git.
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { configEnv, driverOverrides, gitEnv, SAFE_CONFIG } from "../../src/lib/git/git.ts";

describe("git's environment", () => {
  it("blanks each driver, hook, credential helper and remote program a configuration names, whatever its name", () => {
    const list = [
      "filter.lfs.process\ngit-lfs filter-process",
      "filter.a=b.clean\nevil",
      "diff.pdf.textconv\npdftotext",
      "merge.ours.driver\ntrue",
      "hook.linter.event\npre-commit",
      "credential.https://example.com.helper\nstore",
      "remote.origin.url\next::sh -c x",
      "user.name\nSomeone",
    ].map((e) => `${e}\0`).join("");
    const o = new Map(driverOverrides(list));
    for (const k of ["filter.lfs.clean", "filter.lfs.smudge", "filter.lfs.process", "filter.a=b.clean", "diff.pdf.textconv", "diff.pdf.command", "merge.ours.driver", "hook.linter.event", "hook.linter.command", "credential.https://example.com.helper", "remote.origin.uploadpack"]) {
      assert.equal(o.get(k), "", k);
    }
    assert.equal(o.get("filter.lfs.required"), "false");
    assert.equal(o.get("hook.linter.enabled"), "false");
    assert.equal(o.get("remote.origin.promisor"), "false");
    assert.equal([...o.keys()].some((k) => k.startsWith("user.")), false);
  });

  it("passes overrides as GIT_CONFIG_COUNT variables and shuts configuration files, transports and lazy fetch", () => {
    const env = gitEnv({ PATH: "/usr/bin", HOME: "/home/x", GIT_DIR: "/elsewhere", GIT_CONFIG_PARAMETERS: "'core.pager=evil'", GIT_EXTERNAL_DIFF: "evil" });
    assert.equal(env.GIT_DIR, undefined);
    assert.equal(env.GIT_CONFIG_PARAMETERS, undefined);
    assert.equal(env.GIT_EXTERNAL_DIFF, undefined);
    assert.deepEqual([env.GIT_CONFIG_NOSYSTEM, env.GIT_CONFIG_GLOBAL, env.GIT_ALLOW_PROTOCOL, env.GIT_NO_LAZY_FETCH, env.GIT_ATTR_NOSYSTEM], ["1", "/dev/null", "", "1", "1"]);
    const c = configEnv(SAFE_CONFIG);
    assert.equal(c.GIT_CONFIG_COUNT, String(SAFE_CONFIG.length));
    const pairs = SAFE_CONFIG.map((_, i) => `${c[`GIT_CONFIG_KEY_${i}`]}=${c[`GIT_CONFIG_VALUE_${i}`]}`);
    for (const want of ["core.hooksPath=/dev/null", "core.fsmonitor=false", "protocol.allow=never", "credential.helper=", "core.attributesFile=/dev/null"]) assert.ok(pairs.includes(want), want);
  });
});
