package complete

import "strings"

// Skills returns the skills whose name matches prefix (what follows "@skill:"): those
// starting with it in name order, then fuzzy matches, best first.
func Skills(skills []Skill, prefix string) []Candidate {
	m, low := newMatcher(prefix), strings.ToLower(prefix)
	var rs []ranked
	for _, s := range skills {
		c := Candidate{Text: s.Name, Display: s.Name, Kind: KindSkill, Detail: s.Description}
		rs = rank(rs, m, low, c, s.Name, "")
	}
	sortRanked(rs, false)
	return candidates(rs, 0)
}

// Commands returns the commands whose name matches prefix (what follows the "/"):
// those starting with it in name order, then fuzzy matches, best first.
func Commands(cmds []Command, prefix string) []Candidate {
	m, low := newMatcher(prefix), strings.ToLower(prefix)
	var rs []ranked
	for _, cmd := range cmds {
		display := "/" + cmd.Name
		if cmd.Hint != "" {
			display += " " + cmd.Hint
		}
		c := Candidate{Text: cmd.Name, Display: display, Kind: KindCommand, Detail: cmd.Description}
		rs = rank(rs, m, low, c, cmd.Name, "")
	}
	sortRanked(rs, false)
	return candidates(rs, 0)
}
