package printmode

// SchemaVersion is the version of what json and stream-json write, as
// docs/stream-json.schema.json describes it: the system/init event and the result
// carry it. A field or an event added keeps the version; a field or an event removed,
// renamed, or given another meaning or type bumps it (README "json and stream-json").
const SchemaVersion = "1"

// Events are the kinds of line stream-json writes, by "type" (and "/subtype" where
// the type has one): the one list the schema is checked against, both ways.
var Events = []string{
	"system/init",
	"mode_changed",
	"model_changed",
	"text_delta",
	"thinking_delta",
	"notice",
	"exec_blocked",
	"todo_list",
	"retry",
	"tool_drafting",
	"tool_started",
	"tool_running",
	"tool_finished",
	"usage",
	"step_ended",
	"turn_ended",
	"result",
}

// The subtypes of the result, one per outcome of a run; each has its exit status in
// print mode (cmd/gantry/outcome.go).
const (
	SubtypeSuccess     = "success"
	SubtypeError       = "error_during_execution" // the provider, a tool's set-up, …
	SubtypeMaxTokens   = "error_max_tokens"       // the answer hit the model's output limit
	SubtypeMaxTurns    = "error_max_turns"
	SubtypeBlocked     = "error_blocked" // a hook, or the model's refusal
	SubtypeNeedsPerson = "error_needs_person"
	SubtypeMaxCost     = "error_max_cost"
	SubtypeMaxDuration = "error_max_duration"
	SubtypeBadOutput   = "error_bad_output"
	SubtypeStore       = "error_store"
	SubtypeInterrupted = "error_cancelled"
)

// Subtypes are every subtype a result may carry: the schema's list.
var Subtypes = []string{SubtypeSuccess, SubtypeError, SubtypeMaxTokens, SubtypeMaxTurns, SubtypeBlocked,
	SubtypeNeedsPerson, SubtypeMaxCost, SubtypeMaxDuration, SubtypeBadOutput, SubtypeStore, SubtypeInterrupted}

// Outcome is what a face knows of a run's end that the turn's end does not: a
// question nobody could answer, a bound it set. Subtype is one of Subtypes; Error,
// when set, replaces the result's error.
type Outcome struct {
	Subtype string
	Error   string
}

// apply sets o on r; an empty Outcome leaves r as the turn's end made it.
func (o Outcome) apply(r *Result) {
	if o.Subtype == "" {
		return
	}
	r.Subtype, r.IsError = o.Subtype, o.Subtype != SubtypeSuccess
	if o.Error != "" {
		r.Error = o.Error
	}
}

// Subtype is the result's subtype for a turn that stopped for reason (not end_turn),
// in Claude Code's words where it has them; a reason gantry does not know (a
// provider's own) is error_during_execution, and stop_reason says it.
func Subtype(reason string) string {
	switch reason {
	case "max_turns":
		return SubtypeMaxTurns
	case "max_tokens":
		return SubtypeMaxTokens
	case "blocked", "refusal":
		return SubtypeBlocked // a hook, or the model's refusal (stop_reason tells which)
	case "cancelled":
		return SubtypeInterrupted
	}
	return SubtypeError
}
