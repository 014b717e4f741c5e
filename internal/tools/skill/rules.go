package skill

// RulesOf translates allowed-tools entries written as a skill's (Claude Code's tool
// names or gantry's, with a pattern in parentheses; see allowanceOf) into gantry's
// permission rules, for a custom command's allowed-tools. known says which tool
// names gantry has (nil: all). ignored has each entry left out, with why.
func RulesOf(entries []string, known func(string) bool) (rules, ignored []string) {
	a := allowanceOf(Skill{AllowedTools: entries}, known)
	return a.rules, a.ignored
}
