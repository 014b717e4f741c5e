// Package skill finds the skills of a session — markdown files of instructions in the
// project's and the user's skills folders, and the built-in skills shipped inside the
// binary (builtin/<name>/SKILL.md) — and declares read_skill, whose description lists
// them and which returns one skill's whole text.
package skill
