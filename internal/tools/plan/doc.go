// Package plan declares enter_plan_mode and exit_plan_mode. Plan mode declares only
// read tools; exit_plan_mode sends the plan to the person for approval and, once it is
// approved, restores the mode the session was in before and adds the plan's
// allowedPrompts as permission rules for the rest of the session.
package plan
