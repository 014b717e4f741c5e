package acp

import (
	"context"
	"strings"
)

// runPlugin is /plugin: the enabled plugins, each with its version, scope, folder and
// description (gantry plugin add|remove changes them: docs/plugins.md).
func runPlugin(s *session, _ context.Context, _ string) string {
	var b strings.Builder
	b.WriteString("Plugins (gantry plugin add|list|remove; docs/plugins.md):\n\n")
	for _, l := range s.app.PluginSummary() {
		b.WriteString("- " + l + "\n")
	}
	return b.String()
}
