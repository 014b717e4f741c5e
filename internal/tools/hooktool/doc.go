// Package hooktool declares register_hook, with which the model adds, lists and removes
// hooks for the rest of the session and reads the hook protocol. The hooks themselves
// live in a hook.Runner that the session shares with its agent.
package hooktool
