// No function of src/ runs over MAX_LINES lines but the tables and the exceptions named below, each with its reason.
// A function is what the TypeScript parser calls one (declarations, methods, accessors, constructors, function
// expressions and arrow functions); its size is its lines from the first to the last, nested functions included. A
// function whose body is one returned literal (a table) is not counted.
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, relative, resolve } from "node:path";

const ROOT = resolve(__dirname, "../..");
const SRC = join(ROOT, "src");
const MAX_LINES = 150;

/** "src/-relative path:function name" → why it may be longer. The list can only shrink: a stale entry fails. */
const LONGER_ALLOWED: Record<string, string> = {};

/**
 * Every function longer than `max` lines in the TypeScript project of `tsconfig`, among the files `keep` accepts,
 * as "path relative to base:name" → lines. Parsed by TypeScript itself (the typescript devDependency's API).
 */
async function longFunctions(tsconfig: string, base: string, keep: (file: string) => boolean, max: number): Promise<Map<string, number>> {
  const { API } = await import("typescript/unstable/sync");
  const is = await import("typescript/unstable/ast/is");
  const { SyntaxKind } = await import("typescript/unstable/ast");
  type Node = import("typescript/unstable/ast").Node;
  const api = new API({ cwd: base });
  const found = new Map<string, number>();
  try {
    const program = api.updateSnapshot({ openProject: tsconfig }).getProjects()[0].program;
    for (const file of program.getSourceFileNames().filter(keep)) {
      const sf = program.getSourceFile(file)!;
      const rel = relative(base, file).split("\\").join("/");
      const nameOf = (n: Node): string => {
        const own = (n as Node & { name?: Node & { text?: string } }).name;
        if (own?.text) return own.text;
        const p = n.parent as Node & { name?: Node & { text?: string } };
        if (p && (p.kind === SyntaxKind.VariableDeclaration || p.kind === SyntaxKind.PropertyAssignment) && p.name?.text) return p.name.text;
        return "<anonymous>";
      };
      const isTable = (n: Node): boolean => {
        let body = (n as Node & { body?: Node }).body;
        if (body && body.kind === SyntaxKind.Block) {
          const statements = (body as Node & { statements: readonly Node[] }).statements;
          if (statements.length !== 1 || statements[0].kind !== SyntaxKind.ReturnStatement) return false;
          body = (statements[0] as Node & { expression?: Node }).expression;
        }
        while (body && body.kind === SyntaxKind.ParenthesizedExpression) body = (body as Node & { expression: Node }).expression;
        return !!body && (body.kind === SyntaxKind.ObjectLiteralExpression || body.kind === SyntaxKind.ArrayLiteralExpression);
      };
      const visit = (n: Node): undefined => {
        if (is.isFunctionLikeDeclaration(n) && (n as Node & { body?: Node }).body) {
          const lines = sf.getLineAndCharacterOfPosition(n.getEnd()).line - sf.getLineAndCharacterOfPosition(n.getStart(sf)).line + 1;
          if (lines > max && !isTable(n)) {
            const key = `${rel}:${nameOf(n)}`;
            found.set(key, Math.max(lines, found.get(key) ?? 0));
          }
        }
        n.forEachChild(visit);
        return undefined;
      };
      sf.forEachChild(visit);
    }
  } finally {
    api.close();
  }
  return found;
}

describe("functions of src/", () => {
  it(`are at most ${MAX_LINES} lines, but tables and the listed exceptions`, async () => {
    const long = await longFunctions(join(ROOT, "tsconfig.json"), SRC, (f) => resolve(f).startsWith(SRC + "/"), MAX_LINES);
    const unexplained = [...long].filter(([k]) => !(k in LONGER_ALLOWED)).map(([k, n]) => `${k} (${n} lines)`);
    assert.deepEqual(unexplained, [], `functions over ${MAX_LINES} lines: split them, or name them in LONGER_ALLOWED with a reason`);
    const stale = Object.keys(LONGER_ALLOWED).filter((k) => !long.has(k));
    assert.deepEqual(stale, [], "LONGER_ALLOWED entries no longer over the limit: remove them");
  });

  it("are measured by TypeScript's parser: a long function counts, a table and a short one do not", async (t) => {
    const dir = mkdtempSync(join(tmpdir(), "fn-size-"));
    t.after(() => rmSync(dir, { recursive: true, force: true }));
    const body = (n: number) => Array.from({ length: n }, (_, i) => `  x += ${i};`).join("\n");
    writeFileSync(join(dir, "tsconfig.json"), JSON.stringify({ compilerOptions: { noEmit: true, strict: false }, include: ["*.ts"] }));
    writeFileSync(join(dir, "x.ts"), [
      `export function long() {\n  let x = 0;\n${body(160)}\n  return x;\n}`,
      `export const arrow = () => {\n  let x = 0;\n${body(155)}\n};`,
      `export function short() {\n  let x = 0;\n${body(10)}\n}`,
      `export function table() {\n  return {\n${Array.from({ length: 200 }, (_, i) => `    k${i}: ${i},`).join("\n")}\n  };\n}`,
      "export const s = `function inString() {\n" + body(200) + "\n}`;",
      `export class C {\n  method() {\n    let x = 0;\n${body(151)}\n  }\n}`,
    ].join("\n"));
    const long = await longFunctions(join(dir, "tsconfig.json"), dir, (f) => f.endsWith("/x.ts"), MAX_LINES);
    assert.deepEqual([...long.keys()].sort(), ["x.ts:arrow", "x.ts:long", "x.ts:method"]);
  });
});
