// Package hook runs the user's hooks: shell commands that gantry starts at fixed points
// of a session (SessionStart, UserPromptSubmit, PreToolUse, PostToolUse, Stop,
// SubagentStop, PreCompact, Notification), in the shape and with the protocol of Claude
// Code's command hooks so that users can carry theirs over.
//
// A Runner holds the hooks of the settings files and those registered during the
// session (register_hook). Run starts the hooks of one event whose matcher selects the
// tool, all at once, each as `bash -c` in its own process group with one JSON object on
// stdin, waits for all of them, and folds what they say — exit status, stderr, JSON on
// stdout — in their configured order into one Outcome for the caller: block and why,
// context for the model, a rewritten tool input, a permission granted, warnings. A hook has a timeout after which its whole
// process group is killed; nothing a hook leaves behind can make Run hang.
package hook
