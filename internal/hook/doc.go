// Package hook runs the user's hooks: shell commands that gantry starts at fixed points
// of a session (SessionStart, UserPromptSubmit, PreToolUse, PostToolUse, Stop,
// SubagentStart, SubagentStop, PreCompact, Notification, SessionEnd), and prompts the session's model
// judges there, in the shape and with the protocol of Claude Code's command and prompt
// hooks so that users can carry theirs over.
//
// A Runner holds the hooks of the settings files and those registered during the
// session (register_hook). Run starts the hooks of one event whose matcher selects the
// tool, all at once — a command as `bash -c` in its own process group with one JSON
// object on stdin, a prompt as one request to the model (Base.Model) — waits for all of
// them, and folds what they say (exit status, stderr, JSON on stdout or in the model's
// answer) in their configured order into one Outcome for the caller: block and why,
// context for the model, a rewritten tool input, a permission granted, the exports of
// SessionStart hooks (CLAUDE_ENV_FILE), warnings. A hook has a timeout after which its
// whole process group is killed; nothing a hook leaves behind can make Run hang, and
// only what a settings file's hook detached on purpose (setsid, nohup) outlives it.
package hook
