// Whether Claude Code's sandbox confines a Bash call (provisional: replaced by the measured reader).
export function sandboxState(_input: unknown, _root: string): "on" | "off" | "unknown" {
  return "unknown";
}
