// Package plan declares enter_plan_mode and exit_plan_mode. Plan mode declares only
// read tools; exit_plan_mode sends the plan, with the exact rules its allowed_prompts
// would grant (grants.go), to the person for approval and, once it is approved,
// restores the mode the session was in before and adds those rules as permission
// rules for the rest of the session only.
package plan
