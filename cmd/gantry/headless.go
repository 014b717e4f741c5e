package main

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"

	"github.com/gantry-dev/gantry/internal/app"
	"github.com/gantry-dev/gantry/internal/face"
	"github.com/gantry-dev/gantry/internal/session"
	"github.com/gantry-dev/gantry/internal/tool"
	"github.com/gantry-dev/gantry/internal/ui/printmode"
)

// headless is print mode's Asker without --interactive: nobody can answer, so the
// first question ends the run. A job that waits for a person never ends, and one that
// goes on without the answer (a refused edit, a folder's hooks not run) may report
// success for work it did not do; so the run stops there, exits exitNeedsPerson, and
// says in one sentence the flag that answers the question in advance (README "Exit
// status"). It reports NoHuman, so that the core declares no tool that only asks
// (ask_user, the plan tools) and tells the model nobody is there.
type headless struct {
	mu   sync.Mutex
	need string             // the first question, as the sentence that names its flag
	stop context.CancelFunc // ends the run's turn
}

// NoHuman reports that nobody answers (face.Nobody reads it).
func (h *headless) NoHuman() bool { return true }

// bind returns the context of the run that a question ends.
func (h *headless) bind(ctx context.Context) context.Context {
	ctx, cancel := context.WithCancel(ctx)
	h.mu.Lock()
	h.stop = cancel
	h.mu.Unlock()
	return ctx
}

// asked keeps the first question and ends the turn.
func (h *headless) asked(sentence string) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.need == "" {
		h.need = sentence
	}
	if h.stop != nil {
		h.stop()
	}
}

// question is the sentence of the first question asked, "" when none was.
func (h *headless) question() string {
	if h == nil {
		return ""
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.need
}

// AskPermission implements face.Asker: the call is refused (the model is told why,
// and it is a denial of the result) and the run ends.
func (h *headless) AskPermission(_ context.Context, req face.PermissionRequest) (face.Answer, error) {
	h.asked(permissionQuestion(req))
	return face.DenyOnce, face.ErrNoHuman
}

// AskUser implements face.Asker. Print mode without -i does not declare ask_user, so
// only a caller other than the model asks here.
func (h *headless) AskUser(context.Context, []face.Question) (face.UserAnswer, error) {
	h.asked("a question for the person came up, and print mode has nobody to answer it: run with -i to answer at the terminal.")
	return face.UserAnswer{}, face.ErrNoHuman
}

// ApprovePlan implements face.Asker. Print mode without -i does not declare
// exit_plan_mode, so a plan-mode run's plan is its answer and nothing asks here but
// another caller.
func (h *headless) ApprovePlan(context.Context, face.PlanRequest) (face.PlanAnswer, error) {
	h.asked("the plan needs approval, and print mode has nobody to give it: run with -i to approve it at the terminal.")
	return face.PlanAnswer{}, face.ErrNoHuman
}

// TrustFolder implements face.Asker. The core does not ask an Asker with nobody
// behind it; runPrint asks trustQuestion before the session starts.
func (h *headless) TrustFolder(context.Context, face.TrustRequest) (bool, error) {
	return false, face.ErrNoHuman
}

// permissionQuestion names what answers a permission question in advance: the rule
// the question would have offered, the mode that allows the call's level, or -i.
func permissionQuestion(req face.PermissionRequest) string {
	reason := ""
	if req.Reason != "" {
		reason = " (" + strings.TrimSuffix(req.Reason, ".") + ")"
	}
	if req.ByHook {
		return fmt.Sprintf("a hook asks before %s runs%s, and print mode has nobody to ask: run with -i to be asked, or change the hook.", req.Name, reason)
	}
	var ways []string
	for _, r := range req.Always.Rules {
		ways = append(ways, "--allow '"+r+"'")
	}
	switch {
	case req.EveryMode || req.Level == tool.LevelRead:
	case req.Level == tool.LevelWrite:
		ways = append(ways, "--permission-mode accept-edits")
	default:
		ways = append(ways, "--permission-mode yolo")
	}
	if len(ways) == 0 {
		return fmt.Sprintf("%s needs permission%s, and print mode has nobody to ask: run with -i to be asked.", req.Name, reason)
	}
	return fmt.Sprintf("%s needs permission%s, and print mode has nobody to ask: allow it with %s, or run with -i to be asked.",
		req.Name, reason, strings.Join(ways, " or "))
}

// trustQuestion is the sentence for a folder whose project files wait for its trust
// when the flags do not settle it: --trust runs them, --trust=false goes on without.
func trustQuestion(t app.FolderTrust) string {
	why := "is not trusted"
	if t.State == app.TrustChanged {
		why = "changed since it was trusted (" + strings.Join(t.Changed, ", ") + ")"
	}
	return fmt.Sprintf("the folder %s %s, and print mode has nobody to ask whether its project MCP servers, hooks, env and .gantry config may run: run with --trust to run them, --trust=false to go on without them, or -i to be asked.",
		t.Folder, why)
}

// runOutcome is the exit status of a print-mode run that ended with end, the result's
// outcome, and the sentence for stderr ("" for success). need is the question nobody
// answered, if one was asked.
func runOutcome(end face.TurnEnded, need string) (int, printmode.Outcome, string) {
	switch {
	case need != "":
		return exitNeedsPerson, printmode.Outcome{Subtype: printmode.SubtypeNeedsPerson, Error: need}, need
	case end.StopReason == stopMaxCost, end.StopReason == stopMaxDuration, end.StopReason == stopBadOutput:
		return boundExit(end)
	case end.StopReason == "cancelled":
		return exitInterrupted, printmode.Outcome{}, "cancelled"
	case end.StoreErr != nil && end.Err != nil:
		return exitStore, printmode.Outcome{}, sentence(end.Err)
	case end.StoreErr != nil:
		return exitStore, printmode.Outcome{}, "the session could not be stored: " + sentence(end.StoreErr)
	case end.StopReason == "end_turn":
		return exitSuccess, printmode.Outcome{}, ""
	}
	code := exitError
	switch end.StopReason {
	case "max_turns":
		code = exitMaxTurns
	case "blocked", "refusal":
		code = exitBlocked
	}
	if end.Err != nil {
		return code, printmode.Outcome{}, sentence(end.Err)
	}
	return code, printmode.Outcome{}, fmt.Sprintf("the model stopped early (%s)", end.StopReason)
}

// isStoreErr reports whether err stopped gantry at the session store: damaged, or
// not writable.
func isStoreErr(err error) bool {
	var damaged *session.DamagedError
	var write *session.WriteError
	return errors.As(err, &damaged) || errors.As(err, &write)
}
