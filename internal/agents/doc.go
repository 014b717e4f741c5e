// Package agents reads subagent definitions: markdown files whose YAML front matter
// names the agent, says when to use it, and may list its tools and its model, and
// whose body is its system prompt. gantry's folders (.gantry/agents, the user config
// folder's agents) come before Claude Code's (.claude/agents, ~/.claude/agents), and a
// project's before the user's: the first definition of a name is the one used.
package agents
