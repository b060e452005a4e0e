// A small lexer for TypeScript sources, enough to read their imports (test/unit/imports.test.ts) and their test
// titles (test/plugin/features.test.ts): comments, strings, templates (with nested `${…}`) and regex literals are
// told apart, so that an import or a title written inside a string or a comment is not taken for one.

const KEYWORDS_BEFORE_REGEX = new Set(["return", "typeof", "case", "in", "of", "new", "delete", "void", "throw", "instanceof", "yield", "await", "do", "else"]);

export interface Masked {
  /** The code with each comment blanked and each string or template literal replaced by `"#<n>"`. */
  code: string;
  /** The value of literal n; null for a template (never a module specifier). */
  strings: (string | null)[];
  /** The source text of literal n, quotes or backticks included (a template's with its `${…}` parts). */
  raws: string[];
}

/** A TypeScript source told apart into code, comments, strings, templates and regex literals. */
export function mask(source: string): Masked {
  const out: string[] = [];
  const strings: (string | null)[] = [];
  const raws: string[] = [];
  // Templates still open, innermost last: their literal number and where they start.
  const open: { k: number; start: number }[] = [];
  // Brace depth of each open `${` of a template, innermost last.
  const templates: number[] = [];
  let depth = 0;
  let last = ""; // the last significant character or word of code, to tell a regex literal from a division
  let i = 0;
  const n = source.length;
  const placeholder = (value: string | null, raw: string) => {
    strings.push(value);
    raws.push(raw);
    out.push(`"#${strings.length - 1}"`);
    last = '"';
  };
  const readTemplate = () => {
    // i is just after a backtick or after the } that closes a ${…}: read up to the closing backtick or the next ${.
    while (i < n) {
      const c = source[i];
      if (c === "\\") i += 2;
      else if (c === "`") {
        i++;
        const t = open.pop();
        if (t) raws[t.k] = source.slice(t.start, i);
        return;
      } else if (c === "$" && source[i + 1] === "{") {
        i += 2;
        templates.push(depth);
        depth++;
        out.push("(");
        last = "(";
        return;
      } else i++;
    }
  };
  while (i < n) {
    const c = source[i];
    const d = source[i + 1];
    if (c === "/" && d === "/") {
      while (i < n && source[i] !== "\n") i++;
    } else if (c === "/" && d === "*") {
      const end = source.indexOf("*/", i + 2);
      i = end < 0 ? n : end + 2;
      out.push(" ");
    } else if (c === '"' || c === "'") {
      let value = "";
      const start = i;
      i++;
      while (i < n && source[i] !== c) {
        if (source[i] === "\\") {
          value += source[i + 1];
          i += 2;
        } else value += source[i++];
      }
      i++;
      placeholder(value, source.slice(start, i));
    } else if (c === "`") {
      open.push({ k: strings.length, start: i });
      i++;
      placeholder(null, "");
      readTemplate();
    } else if (c === "}" && templates.length > 0 && templates[templates.length - 1] === depth - 1) {
      templates.pop();
      depth--;
      i++;
      out.push(")");
      readTemplate();
    } else if (c === "/" && (last === "" || "(,=:[!&|?{};+-*%<>~^".includes(last) || KEYWORDS_BEFORE_REGEX.has(last))) {
      // A regex literal: up to the unescaped / outside a character class, then its flags.
      i++;
      let inClass = false;
      while (i < n) {
        const r = source[i];
        if (r === "\\") i += 2;
        else if (r === "[") (inClass = true), i++;
        else if (r === "]") (inClass = false), i++;
        else if (r === "/" && !inClass) {
          i++;
          break;
        } else if (r === "\n") break;
        else i++;
      }
      while (i < n && /[a-z]/.test(source[i])) i++;
      out.push("/re/");
      last = ")";
    } else if (/[A-Za-z_$]/.test(c)) {
      let j = i;
      while (j < n && /[\w$]/.test(source[j])) j++;
      last = source.slice(i, j);
      out.push(last);
      i = j;
    } else {
      if (c === "{") depth++;
      else if (c === "}") depth--;
      if (!/\s/.test(c)) last = c;
      out.push(c);
      i++;
    }
  }
  return { code: out.join(""), strings, raws };
}

/** The module specifiers a source imports: import/export … from, bare import, import(), require(). */
export function importsOf(source: string): string[] {
  const { code, strings } = mask(source);
  const found: string[] = [];
  const patterns = [
    /(?<![.\w$])(?:import|export)\s+(?:type\s+)?[\w$\s{},*]*?\bfrom\s*"#(\d+)"/g,
    /(?<![.\w$])import\s*"#(\d+)"/g,
    /(?<![.\w$])import\s*\(\s*"#(\d+)"\s*\)/g,
    /(?<![.\w$])require\s*\(\s*"#(\d+)"\s*\)/g,
  ];
  for (const re of patterns) {
    for (const m of code.matchAll(re)) {
      const value = strings[Number(m[1])];
      if (value !== null) found.push(value);
    }
  }
  return found;
}

/** The calls whose first argument is a test's title: node:test's, and the golden suite's own `step` / `aside`. */
const TITLE_CALL = /(?<![.\w$])(it|test|describe|step|aside)(?:\.(?:skip|only|todo))?\s*\(\s*"#(\d+)"/g;

/** The titles of the tests and suites a test file declares, as written (quotes or backticks included). */
export function testTitles(source: string): string[] {
  const { code, raws } = mask(source);
  return [...code.matchAll(TITLE_CALL)].map((m) => raws[Number(m[2])]);
}
