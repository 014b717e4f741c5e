package complete

// The kinds of Candidate.
const (
	KindFile    = "file"
	KindDir     = "dir"
	KindSkill   = "skill"
	KindCommand = "command"
)

// Candidate is one completion offered to the person.
type Candidate struct {
	// Text is what Apply inserts after the token's sigil: a path relative to the project
	// (a folder's ends with "/"), a skill's or a command's name.
	Text string
	// Display is what the list shows: the path, the skill's name, or "/name" followed
	// by the command's argument hint.
	Display string
	// Kind is KindFile, KindDir, KindSkill or KindCommand.
	Kind string
	// Detail is a description to show beside Display, or "".
	Detail string
}

// Skill is a skill that can be named in a prompt as @skill:<Name>.
type Skill struct {
	Name        string
	Description string
}

// Command is a slash command.
type Command struct {
	Name        string // without the slash
	Description string
	Hint        string // its arguments, e.g. "<model>", or ""
}
