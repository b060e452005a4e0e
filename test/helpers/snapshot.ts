// Byte-level snapshot of a folder, to prove a failed command changed nothing.
import { readdirSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";

export function snapshot(dir: string): Record<string, string> {
  const out: Record<string, string> = {};
  const walk = (rel: string) => {
    for (const name of readdirSync(join(dir, rel)).sort()) {
      const r = rel ? `${rel}/${name}` : name;
      const st = statSync(join(dir, r));
      if (st.isDirectory()) {
        out[`${r}/`] = "";
        walk(r);
      } else out[r] = readFileSync(join(dir, r)).toString("base64");
    }
  };
  walk("");
  return out;
}
