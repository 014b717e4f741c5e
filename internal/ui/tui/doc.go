// Package tui is gantry's terminal face: a bubbletea program that runs in the
// terminal's own screen (no alternate screen), so what is finished — the person's
// prompts, the model's answers rendered as Markdown, tool lines with their previews
// and diffs, counters — is printed once into the terminal's scrollback, where it can
// be scrolled, selected and copied, and only the live part is redrawn: the paragraph
// being streamed, the running tools, a question being asked, the input box and the
// status line. Rendering cost stays flat however long the conversation grows.
//
// The core talks to it through the two seams of package face: events arrive as
// messages (Program.Send from the agent's goroutines) and questions (permission,
// ask_user, plan approval) are dialogs whose answers go back on a channel.
package tui
