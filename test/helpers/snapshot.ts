// Byte-level snapshot of a folder, to prove a failed command changed nothing.
import { lstatSync, readdirSync, readFileSync, readlinkSync, statSync } from "node:fs";
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

/**
 * Every entry under `dir` by lstat: type, mode, bytes or link text, never following a link (so a file written
 * through a symlink, or a link replaced by a file, shows). A FIFO or device shows as its kind, unread.
 */
export function snapshotLinks(dir: string): Record<string, string> {
  const out: Record<string, string> = {};
  const walk = (rel: string) => {
    for (const name of readdirSync(join(dir, rel)).sort()) {
      const r = rel ? `${rel}/${name}` : name;
      const st = lstatSync(join(dir, r));
      const mode = (st.mode & 0o7777).toString(8);
      if (st.isSymbolicLink()) out[r] = `link ${readlinkSync(join(dir, r))}`;
      else if (st.isDirectory()) {
        out[`${r}/`] = `dir ${mode}`;
        walk(r);
      } else if (st.isFile()) out[r] = `file ${mode} ${st.nlink} ${readFileSync(join(dir, r)).toString("base64")}`;
      else out[r] = `other ${mode} ${st.mode & 0o170000}`;
    }
  };
  walk("");
  return out;
}
