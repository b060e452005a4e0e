import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { existsSync, readlinkSync, realpathSync, statSync } from "node:fs";
import { join } from "node:path";
import { isSymlink, readRef, refFiles, ROOT, skillFiles } from "./plugin-files.ts";

describe("refs and scripts", () => {
  for (const f of skillFiles()) {
    const refs = refFiles(f.name);

    describe(f.name, () => {
      it("has refs", () => {
        assert.ok(refs.length > 0);
      });

      it("tells the lead to read each ref at the step that needs it", () => {
        const flow = f.body.slice(0, f.body.indexOf("## References"));
        for (const r of refs) {
          const esc = r.replace(/[.]/g, "\\.");
          const re = new RegExp(`\\bread ([^.\\n]|\\.md)*?\`refs/${esc}\`[^\\n]*?\\bnow\\b`, "i");
          assert.match(flow, re, `no "read refs/${r} now" instruction in the flow of ${f.rel}`);
        }
      });

      it("lists each ref once under References", () => {
        const refsSection = f.body.slice(f.body.indexOf("## References"));
        for (const r of refs) {
          const n = refsSection.split(`\`refs/${r}\``).length - 1;
          assert.equal(n, 1, `refs/${r} listed ${n} times`);
        }
      });

      it("mentions only refs that exist", () => {
        for (const m of f.raw.matchAll(/refs\/([\w.-]+\.md)/g)) {
          assert.ok(existsSync(join(ROOT, "skills", f.name, "refs", m[1])), `missing refs/${m[1]}`);
        }
      });

      it("keeps refs one level deep and free of helper calls", () => {
        for (const r of refs) {
          const text = readRef(f.name, r);
          for (const other of refs) assert.ok(!text.includes(`refs/${other}`), `refs/${r} points at refs/${other}`);
          assert.ok(!text.includes("${CLAUDE_"), `refs/${r} relies on a substitution refs never get`);
          assert.doesNotMatch(text, /node \S*plan\.js/, `refs/${r} calls the helper`);
        }
      });

      it("gives a ref over 100 lines a contents line", () => {
        for (const r of refs) {
          const text = readRef(f.name, r);
          if (text.split("\n").length > 100) assert.match(text, /^Contents:/m, `refs/${r}`);
        }
      });

      it("has SKILL.md as a regular file", () => {
        assert.equal(isSymlink(`skills/${f.name}/SKILL.md`), false);
        assert.ok(statSync(join(ROOT, "skills", f.name, "SKILL.md")).isFile());
      });

      it("links scripts/plan.js to the bundled helper inside the plugin", () => {
        const link = `skills/${f.name}/scripts/plan.js`;
        assert.ok(isSymlink(link));
        assert.equal(readlinkSync(join(ROOT, link)), "../../../dist/plan.js");
        assert.equal(realpathSync(join(ROOT, link)), realpathSync(join(ROOT, "dist/plan.js")));
      });
    });
  }
});
