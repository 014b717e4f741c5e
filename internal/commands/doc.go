// Package commands finds the person's custom slash commands and expands one into the
// prompt the model receives. A command is a Markdown file: gantry's own
// (.gantry/commands/ in the project, commands/ in the user's config folder), Claude
// Code's (.claude/commands/, ~/.claude/commands/; a subfolder namespaces the
// description as "(project:frontend)") and Codex's saved prompts (~/.codex/prompts/*.md,
// run as /prompts:name). Its front matter may give description, argument-hint,
// allowed-tools, model and disable-model-invocation; its body may use $ARGUMENTS,
// $1…$9, Codex's named $NAME (given as NAME=value), !`command` (run through a Shell the
// caller gives: the session's permission gate and sandbox) and @file (left for the
// prompt's reference expansion).
package commands
