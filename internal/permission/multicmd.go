package permission

import (
	"slices"
	"strings"
)

// Programs made of subcommands, read as each reads its own command line, so that a
// rule naming a subcommand (`bash:git push.*`, `bash:docker run.*`) sees it however it
// is written: after the program's global options (`git -C . --no-pager push`), under
// another name for the same subcommand (`git send-pack`, `docker container run`,
// `npm rum`), in the dashed form of the program (`git-push`, `docker-compose`), through
// a git alias given on the command line (`git -c alias.x=push x`) or a script run
// without `run` (`yarn deploy`). The shell parser and the exec supervisor's judge share
// this table: each reads a command into the same other readings, and a deny or ask
// rule matching any reading covers the command. Allow rules still match the command as
// written. Each row has a test (multicmd_test.go and testdata/subcommands.txt).

// multiProgram is how one program reads its command line.
type multiProgram struct {
	// valued are the global options whose value is the next word; the forms
	// --name=value and, for one letter, -Xvalue are read too. Any other word that
	// begins with - before the subcommand is read as a flag.
	valued []string
	// flags are global options without a value, known so that they are dropped
	// after the subcommand too (anywhere).
	flags []string
	// anywhere: the program reads its global options anywhere before "--" (npm's
	// nopt, cobra's interspersed flags), not only before the subcommand.
	anywhere bool
	// loose: the program takes an abbreviation of a long option (npm --pref x) and
	// options it has no row for, so the command is also read with every option
	// dropped, and with an unknown long option taking the next word as its value.
	loose bool
	// same are the groups of spellings of one subcommand, words separated by
	// spaces: a command written with one spelling is read with each other one.
	same [][]string
	// own, when set, lists the program's own commands: any other first operand is a
	// script of package.json it runs, read as `PROG run NAME` too.
	own []string
	// dashed: the program runs PROG-SUB as PROG SUB (git-push, a program of git's
	// exec path).
	dashed bool
}

// dashedPrograms are programs that are another program's subcommand under their own
// name.
var dashedPrograms = map[string][]string{
	"docker-compose": {"docker", "compose"},
	"docker-buildx":  {"docker", "buildx"},
}

// lifecycle are the npm scripts that have a command of their own (`npm test` runs
// the script test like `npm run test`).
var lifecycle = []string{"test", "start", "stop", "restart"}

var multiPrograms = map[string]*multiProgram{
	// git's global options (git.c handle_options), and the plumbing that does what a
	// porcelain command does with the same operands. commit-tree + update-ref is not
	// commit written otherwise (another shape of operands), so it is not a row.
	"git": {
		valued: []string{"-C", "-c", "--git-dir", "--work-tree", "--namespace", "--super-prefix",
			"--config-env", "--shallow-file", "--attr-source"},
		same: [][]string{
			{"push", "send-pack", "http-push"},
			{"fetch", "fetch-pack", "http-fetch"},
			{"add", "stage"},
			{"init", "init-db"},
			{"blame", "annotate"},
			{"log", "whatchanged"},
			{"fsck", "fsck-objects"},
			{"checkout", "switch"},  // checkout does what switch and restore do,
			{"checkout", "restore"}, // but switch does not restore
		},
		dashed: true,
	},
	// npm reads its options anywhere (nopt); -C is --prefix.
	"npm": {
		valued: []string{"--prefix", "-C", "-w", "--workspace", "--userconfig", "--globalconfig", "--cache",
			"--registry", "--loglevel", "--script-shell", "--otp", "--tag", "--access", "--scope", "--node-options",
			"--call", "-c", "--package", "--include", "--omit", "--before", "--location"},
		flags: []string{"-g", "--global", "-ws", "--workspaces", "--include-workspace-root", "--if-present",
			"--ignore-scripts", "-s", "--silent", "-q", "--quiet", "-d", "-dd", "-ddd", "--verbose", "-y", "--yes",
			"--foreground-scripts", "--force", "-f"},
		anywhere: true,
		loose:    true,
		same: append([][]string{
			{"run", "run-script", "rum", "urn"},
			{"exec", "x"},
			{"install", "i", "in", "ins", "inst", "insta", "instal", "isnt", "isnta", "isntal", "isntall", "add"},
			{"uninstall", "un", "unlink", "remove", "rm", "r"},
			{"ci", "clean-install", "ic", "install-clean", "isntall-clean"},
		}, lifecycleGroups("run", "run-script", "rum", "urn")...),
	},
	"pnpm": {
		valued:   []string{"-C", "--dir", "--filter", "-F", "--filter-prod", "--workspace-concurrency", "--reporter", "--loglevel", "--test-pattern", "--changed-files-ignore-pattern", "--store-dir", "--virtual-store-dir"},
		flags:    []string{"-r", "--recursive", "-w", "--workspace-root", "--stream", "--parallel", "--aggregate-output", "-s", "--silent", "--if-present", "--no-bail", "--sequential"},
		anywhere: true,
		loose:    true,
		same: append([][]string{
			{"run", "run-script"},
			{"exec"},
			{"install", "i"},
			{"remove", "rm", "uninstall", "un"},
		}, lifecycleGroups("run", "run-script")...),
		own: []string{"add", "audit", "bin", "ci", "config", "c", "create", "dedupe", "deploy", "dlx", "doctor",
			"env", "exec", "fetch", "help", "i", "import", "init", "install", "install-test", "it", "licenses", "link",
			"ln", "list", "ls", "ll", "outdated", "pack", "patch", "patch-commit", "patch-remove", "prune", "publish",
			"rb", "rebuild", "remove", "rm", "root", "run", "run-script", "server", "setup", "start", "store", "t",
			"test", "un", "uninstall", "unlink", "up", "update", "upgrade", "why", "restart", "stop", "recursive",
			"multi", "m", "self-update", "cat-file", "cat-index", "find-hash", "get", "set"},
	},
	"yarn": {
		valued: []string{"--cwd", "--cache-folder", "--global-folder", "--modules-folder", "--mutex",
			"--network-concurrency", "--network-timeout", "--link-folder", "--preferred-cache-folder", "--otp", "--use-yarnrc"},
		same: append([][]string{
			{"run"},
			{"remove", "rm"},
		}, lifecycleGroups("run")...),
		own: []string{"access", "add", "audit", "autoclean", "bin", "cache", "check", "config", "constraints",
			"create", "dedupe", "dlx", "exec", "explain", "generate-lock-entry", "global", "help", "import", "info",
			"init", "install", "licenses", "link", "list", "login", "logout", "node", "npm", "outdated", "owner",
			"pack", "patch", "patch-commit", "plugin", "policies", "publish", "rebuild", "remove", "rm", "run", "search",
			"set", "stage", "tag", "team", "unlink", "unplug", "up", "upgrade", "upgrade-interactive", "version",
			"versions", "why", "workspace", "workspaces", "test", "start", "stop", "restart"},
	},
	"bun": {
		valued: []string{"--cwd", "-c", "--config", "--env-file", "--filter", "-F", "--elide-lines", "--shell"},
		same: append([][]string{
			{"run"},
			{"install", "i"},
			{"add", "a"},
			{"remove", "rm"},
			{"create", "c"},
		}, lifecycleGroups("run")...),
		own: []string{"run", "test", "x", "repl", "exec", "install", "i", "add", "a", "remove", "rm", "update",
			"outdated", "link", "unlink", "patch", "patch-commit", "pm", "build", "init", "create", "c", "upgrade",
			"publish", "audit", "info", "why", "completions", "discord", "help"},
	},
	// docker reads its global options before the subcommand only; the management
	// commands (docker container run) are the old top-level ones (docker run).
	"docker": {
		valued: []string{"--config", "-c", "--context", "-H", "--host", "-l", "--log-level",
			"--tlscacert", "--tlscert", "--tlskey"},
		same: [][]string{
			{"run", "container run"},
			{"exec", "container exec"},
			{"rm", "container rm", "container remove"},
			{"kill", "container kill"},
			{"stop", "container stop"},
			{"start", "container start"},
			{"restart", "container restart"},
			{"create", "container create"},
			{"cp", "container cp"},
			{"commit", "container commit"},
			{"attach", "container attach"},
			{"ps", "container ls", "container ps", "container list"},
			{"rmi", "image rm", "image remove"},
			{"build", "image build", "builder build", "buildx build"},
			{"pull", "image pull"},
			{"push", "image push"},
			{"tag", "image tag"},
			{"images", "image ls", "image list"},
			{"save", "image save"},
			{"load", "image load"},
			{"import", "image import"},
		},
	},
	// docker compose (and docker-compose) has global options of its own.
	"docker compose": {
		valued: []string{"-f", "--file", "-p", "--project-name", "--profile", "--env-file", "--project-directory",
			"--ansi", "--progress", "--parallel"},
	},
	// kubectl (cobra) reads its global flags anywhere.
	"kubectl": {
		valued: []string{"-n", "--namespace", "--context", "--kubeconfig", "--cluster", "--user", "-s", "--server",
			"--token", "--as", "--as-group", "--as-uid", "--request-timeout", "--cache-dir", "--certificate-authority",
			"--client-certificate", "--client-key", "--tls-server-name", "--username", "--password", "--log-file",
			"-v", "--v", "--vmodule", "--log-dir", "--profile", "--profile-output"},
		flags: []string{"--insecure-skip-tls-verify", "--match-server-version", "--warnings-as-errors",
			"--disable-compression", "--logtostderr", "--alsologtostderr"},
		anywhere: true,
	},
	// gh (cobra): -R/--repo belongs to the subcommands but is read wherever it is.
	"gh": {
		valued:   []string{"-R", "--repo", "--hostname"},
		anywhere: true,
	},
}

// lifecycleGroups are the groups `test` ≡ `run test` ≡ `run-script test`… for the
// spellings of run given.
func lifecycleGroups(runs ...string) [][]string {
	var out [][]string
	for _, s := range lifecycle {
		g := []string{s}
		for _, r := range runs {
			g = append(g, r+" "+s)
		}
		if s == "test" {
			g = append(g, "t", "tst")
		}
		out = append(out, g)
	}
	return out
}

// maxAliases bounds the git aliases followed in one command (git stops a loop too).
const maxAliases = 5

// otherReadings returns the other ways the command args (args[0] the program, by
// its base name) is read by the program itself, each as words beginning with the
// program's name; nil when the program is not one of the table's or nothing reads
// otherwise. A word that is not a literal before the subcommand is read as a flag:
// the exec supervisor judges what it turns out to be.
func otherReadings(args []word) [][]word {
	if len(args) == 0 || !args[0].lit {
		return nil
	}
	var out [][]word
	seen := map[string]bool{joinWords(args): true}
	add := func(r []word) {
		if t := joinWords(r); !seen[t] {
			seen[t] = true
			out = append(out, r)
		}
	}
	head := []string{args[0].val}
	rest := args[1:]
	if to, ok := dashedPrograms[head[0]]; ok {
		head = to
		add(append(litWords(head...), rest...))
	} else if base, sub, ok := strings.Cut(head[0], "-"); ok && sub != "" && multiPrograms[base] != nil && multiPrograms[base].dashed {
		head = []string{base}
		rest = append([]word{litWord(sub)}, rest...)
		add(append(litWords(head...), rest...))
	}
	readInto(head, rest, add, map[string]string{}, 0)
	return out
}

// readInto reads args, the words after the program's words head (docker compose is
// a program of its own inside docker), and gives each reading to add; aliases are
// the git aliases given so far.
func readInto(head []string, args []word, add func([]word), aliases map[string]string, depth int) {
	prog := strings.Join(head, " ")
	p := multiPrograms[prog]
	if p == nil {
		return
	}
	k := skipGlobals(p, prog, args, aliases, false)
	rests := [][]word{afterGlobals(p, args[k:], dropKnown)}
	if p.loose {
		g := skipGlobals(p, prog, args, aliases, true)
		rests = append(rests, afterGlobals(p, args[k:], dropAll), afterGlobals(p, args[g:], dropAllGreedy))
	}
	for _, rest := range rests {
		readRest(head, p, rest, add, aliases, depth)
	}
}

// skipGlobals returns the index of the subcommand in args, after the global options;
// greedy: an option the table does not know takes the next word as its value.
func skipGlobals(p *multiProgram, prog string, args []word, aliases map[string]string, greedy bool) int {
	k := 0
	for k < len(args) {
		a := args[k]
		if !a.lit {
			k++
			continue
		}
		v := a.val
		if v == "--" {
			return k + 1
		}
		if !strings.HasPrefix(v, "-") || v == "-" {
			return k
		}
		name, _, eq := strings.Cut(v, "=")
		switch {
		case slices.Contains(p.valued, v):
			if prog == "git" && v == "-c" && k+1 < len(args) && args[k+1].lit {
				noteAlias(aliases, args[k+1].val)
			}
			k += 2
		case eq && slices.Contains(p.valued, name):
			k++
		case len(v) > 2 && v[1] != '-' && slices.Contains(p.valued, v[:2]):
			if prog == "git" && v[:2] == "-c" {
				noteAlias(aliases, v[2:])
			}
			k++
		case greedy && strings.HasPrefix(v, "--") && !eq && !slices.Contains(p.flags, v) && k+1 < len(args) && !strings.HasPrefix(args[k+1].val, "-"):
			k += 2
		default:
			k++ // a flag
		}
	}
	return min(k, len(args))
}

// How afterGlobals treats the options after the subcommand of a program that reads
// them anywhere.
const (
	dropKnown     = iota // the table's global options and their values
	dropAll              // every option; those the table does not know as flags
	dropAllGreedy        // every option; one the table does not know takes the next word
)

// afterGlobals is rest (the subcommand and its words) with the global options after
// the subcommand dropped, for a program that reads them anywhere, up to "--".
func afterGlobals(p *multiProgram, rest []word, how int) []word {
	if !p.anywhere || len(rest) < 2 {
		return rest
	}
	out := []word{rest[0]}
	ws := rest[1:]
	for i := 0; i < len(ws); i++ {
		a := ws[i]
		v := a.val
		if !a.lit || !strings.HasPrefix(v, "-") || v == "-" {
			out = append(out, a)
			continue
		}
		if v == "--" {
			return append(out, ws[i:]...)
		}
		name, _, eq := strings.Cut(v, "=")
		known := slices.Contains(p.valued, name) || slices.Contains(p.flags, v) ||
			len(v) > 2 && v[1] != '-' && slices.Contains(p.valued, v[:2])
		switch {
		case slices.Contains(p.valued, v):
			i++
		case known:
		case how == dropKnown:
			out = append(out, a)
		case how == dropAllGreedy && strings.HasPrefix(v, "--") && !eq && i+1 < len(ws) && !strings.HasPrefix(ws[i+1].val, "-"):
			i++
		}
	}
	return out
}

// readRest reads the subcommand and its words, rest, after the global options.
func readRest(head []string, p *multiProgram, rest []word, add func([]word), aliases map[string]string, depth int) {
	prog := strings.Join(head, " ")
	with := func(ws ...[]word) []word {
		r := litWords(head...)
		for _, w := range ws {
			r = append(r, w...)
		}
		return r
	}
	add(with(rest))
	if len(rest) == 0 || !rest[0].lit || depth >= maxAliases {
		return
	}
	sub := rest[0].val
	if to, ok := aliases[strings.ToLower(sub)]; ok {
		if words := strings.Fields(to); len(words) > 0 {
			readInto(head, append(litWords(words...), rest[1:]...), add, aliases, depth+1)
		}
		return
	}
	grouped := false
	for _, r := range spellings(p, rest) {
		grouped = true
		add(with(r))
		if r[0].val != sub && multiPrograms[prog+" "+r[0].val] != nil {
			readInto(append(head[:len(head):len(head)], r[0].val), r[1:], add, aliases, depth+1)
		}
	}
	if multiPrograms[prog+" "+sub] != nil {
		readInto(append(head[:len(head):len(head)], sub), rest[1:], add, aliases, depth+1) // docker compose -f x down
	}
	switch {
	case prog == "git" && sub == "config":
		// Defining an alias for a command is read as that command.
		for j := 1; j+1 < len(rest); j++ {
			if rest[j].lit && rest[j+1].lit && strings.HasPrefix(strings.ToLower(rest[j].val), "alias.") &&
				!strings.HasPrefix(rest[j+1].val, "!") {
				if words := strings.Fields(rest[j+1].val); len(words) > 0 {
					readInto(head, litWords(words...), add, aliases, depth+1)
				}
			}
		}
	case prog == "yarn" && sub == "workspace" && len(rest) > 2:
		readInto(head, rest[2:], add, aliases, depth+1) // yarn workspace NAME CMD…
	case p.own != nil && !grouped && !slices.Contains(p.own, sub) && !strings.HasPrefix(sub, "-"):
		readInto(head, append(litWords("run"), rest...), add, aliases, depth+1) // a package script
	}
}

// spellings returns rest (the subcommand and what follows) written with each other
// spelling of its subcommand: those of every group holding the longest spelling that
// rest begins with.
func spellings(p *multiProgram, rest []word) [][]word {
	bestLen := 0
	var groups [][]string
	for _, g := range p.same {
		m := 0 // the longest spelling of g that rest begins with
		for _, s := range g {
			if n := len(strings.Fields(s)); n > m && beginsWith(rest, strings.Fields(s)) {
				m = n
			}
		}
		switch {
		case m == 0 || m < bestLen:
		case m > bestLen:
			bestLen, groups = m, [][]string{g}
		default:
			groups = append(groups, g)
		}
	}
	var out [][]word
	for _, g := range groups {
		for _, s := range g {
			out = append(out, append(litWords(strings.Fields(s)...), rest[bestLen:]...))
		}
	}
	return out
}

func beginsWith(ws []word, prefix []string) bool {
	if len(ws) < len(prefix) {
		return false
	}
	for i, s := range prefix {
		if !ws[i].lit || ws[i].val != s {
			return false
		}
	}
	return true
}

// noteAlias keeps a git alias given as -c alias.NAME=VALUE for git's own commands.
func noteAlias(aliases map[string]string, kv string) {
	key, val, ok := strings.Cut(kv, "=")
	name, isAlias := strings.CutPrefix(strings.ToLower(key), "alias.")
	if ok && isAlias && name != "" && !strings.HasPrefix(val, "!") {
		aliases[name] = val
	}
}

func litWords(ss ...string) []word {
	out := make([]word, len(ss))
	for i, s := range ss {
		out[i] = litWord(s)
	}
	return out
}
