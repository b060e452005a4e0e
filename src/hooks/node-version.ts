// The oldest Node.js the plugin runs on: package.json `engines.node`, README's requirements and the SessionStart
// check (hooks/node-check.sh, which tells the user) say the same; test/plugin/node-check.test.ts keeps them equal.
export const MIN_NODE_MAJOR = 18;

/** Whether a `process.versions.node` string ("20.1.0") is a release the plugin supports. */
export function supportedNode(version: string): boolean {
  const major = Number(/^(\d+)\./.exec(version)?.[1]);
  return Number.isInteger(major) && major >= MIN_NODE_MAJOR;
}
