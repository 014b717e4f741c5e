package main

// The exit status of print mode, one per outcome, so that a script or a fleet's job
// can tell them apart without reading stderr (README "Exit status"; docs/fleets.md).
// The json and stream-json result's subtype names the same outcome.
const (
	exitSuccess     = 0   // the model finished its answer
	exitError       = 1   // the turn failed: the provider, a tool's set-up, max tokens, …
	exitUsage       = 2   // a flag's bad value, an unknown flag, an argument not taken
	exitMaxTurns    = 3   // --max-turns reached
	exitBlocked     = 4   // a hook or the model's refusal stopped the turn
	exitNeedsPerson = 5   // something would have asked a person, and none can answer
	exitMaxCost     = 6   // --max-cost reached
	exitMaxDuration = 7   // --max-duration reached
	exitBadOutput   = 8   // the final answer does not conform to --output-schema
	exitStore       = 9   // the session store could not write
	exitInterrupted = 130 // Ctrl-C, SIGTERM, or SIGHUP
)
