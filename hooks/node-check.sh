# SessionStart hook of the do plugin (run by Claude Code as `sh node-check.sh`, no Node needed): silent when
# `node` on PATH is Node.js 18 or newer; otherwise one message to the user (systemMessage) and one note to the model
# (additionalContext) saying what to install. The PreToolUse hook stays silent on its own where node is missing or
# old (hooks.json), so this is the only word the user gets.
v=$(node --version 2>/dev/null) || v=
# Keep only what a version can hold: the text goes into JSON and in front of the user.
v=$(printf '%s' "$v" | tr -cd 'v0-9.' | cut -c1-24)
case $v in
  v1[89].* | v[2-9][0-9].* | v[1-9][0-9][0-9]*.*) exit 0 ;;
  v[0-9]*.*) found="node $v" ;;
  *) if command -v node >/dev/null 2>&1; then found="a node that does not print its version"; else found="no node"; fi ;;
esac
tell="Install Node.js 18 or newer (nodejs.org, nvm, or your package manager), check that node --version prints v18 or later in the shell that starts Claude Code, then restart Claude Code."
printf '{"systemMessage":"The do plugin needs Node.js 18+ on PATH and found %s. %s Until then its /do: skills cannot start; its permission hook stays out of the way.","hookSpecificOutput":{"hookEventName":"SessionStart","additionalContext":"The do plugin cannot run in this session: it needs Node.js 18+ on PATH and found %s. Its /do: skills fail to start (node: command not found, or an error from an old node). If the user asks for one of them or about do, say so and tell them: %s Do not try to run its helper."}}\n' "$found" "$tell" "$found" "$tell"
