package config

import (
	"path/filepath"
	"slices"
	"strings"
)

// layer is what one file says. A nil pointer is a key the file does not set, so that
// merging a layer changes only what the file mentions.
type layer struct {
	Provider           *string                  `yaml:"provider"`
	Model              *modelLayer              `yaml:"model"`
	Models             *modelsLayer             `yaml:"models"`
	Providers          *providersLayer          `yaml:"providers"`
	MaxOutput          *int                     `yaml:"maxOutput"`
	PreviewLines       *int                     `yaml:"previewLines"`
	SkillsDir          *stringList              `yaml:"skillsDir"`
	EditTools          *bool                    `yaml:"editTools"`
	Bash               *bashLayer               `yaml:"bash"`
	Tools              *toolsLayer              `yaml:"tools"`
	Checkpoints        *checkpointsLayer        `yaml:"checkpoints"`
	Compact            *compactLayer            `yaml:"compact"`
	Sandbox            *sandboxLayer            `yaml:"sandbox"`
	MCPServers         map[string]MCPServer     `yaml:"mcpServers"`
	Hooks              map[string][]HookMatcher `yaml:"hooks"`
	Permissions        *permissionsLayer        `yaml:"permissions"`
	PermissionMode     *string                  `yaml:"permissionMode"`
	MaxTurns           *int                     `yaml:"maxTurns"`
	SystemPrompt       *string                  `yaml:"systemPrompt"`
	AppendSystemPrompt *string                  `yaml:"appendSystemPrompt"`
	// TrustedFolders is honoured in the user's file only (see Config.Trusts).
	TrustedFolders []string `yaml:"trustedFolders"`
	// Plugins are plugin folders to enable (pluginload.go).
	Plugins *stringList `yaml:"plugins"`

	// sections are the file's layers of the registered sections, by their index (nil:
	// the file does not set it): see section.go.
	sections []any
}

// modelLayer is the model key: the model's name, or a mapping of the name and the
// stream's timeouts.
type modelLayer struct {
	Name              *string `yaml:"name"`
	StreamIdleTimeout *int    `yaml:"streamIdleTimeout"`
	FirstByteTimeout  *int    `yaml:"firstByteTimeout"`
	PingTimeout       *int    `yaml:"pingTimeout"`
	ResponseTimeout   *int    `yaml:"responseTimeout"`
	MaxRetryAfter     *int    `yaml:"maxRetryAfter"`
}

type modelsLayer struct {
	Fast *string `yaml:"fast"`
	Good *string `yaml:"good"`
}

type toolsLayer struct {
	Defer  *string `yaml:"defer"`
	Search *string `yaml:"search"`
}

type bashLayer struct {
	Timeout *int `yaml:"timeout"`
}

type checkpointsLayer struct {
	Enabled   *bool `yaml:"enabled"`
	MaxFileMB *int  `yaml:"maxFileMB"`
}

type sandboxLayer struct {
	Enabled  *bool       `yaml:"enabled"`
	Writable *stringList `yaml:"writable"`
	Network  *bool       `yaml:"network"`
}

// applySandbox merges a file's sandbox keys. A project's file may only make the
// sandbox stricter (turn it on, the network off, add writable folders inside the
// project): a repository cannot open what the person closed. What it asked beyond
// that is kept in Ignored.
func (s *sandboxLayer) applySandbox(c *Config, path string, project bool) {
	if s.Enabled != nil {
		if project && !*s.Enabled {
			c.Sandbox.Ignored = append(c.Sandbox.Ignored, path+": sandbox.enabled: false is honoured only in the user's config")
		} else {
			b := *s.Enabled
			c.Sandbox.Enabled = &b
		}
	}
	if s.Network != nil {
		if project && *s.Network {
			c.Sandbox.Ignored = append(c.Sandbox.Ignored, path+": sandbox.network: true is honoured only in the user's config")
		} else {
			c.Sandbox.Network = *s.Network
		}
	}
	if s.Writable != nil {
		for _, w := range *s.Writable {
			w = expandHome(w)
			if !filepath.IsAbs(w) {
				w = filepath.Join(c.root, w)
			}
			w = filepath.Clean(w)
			if project && w != c.root && !strings.HasPrefix(w, c.root+string(filepath.Separator)) {
				c.Sandbox.Ignored = append(c.Sandbox.Ignored, path+": sandbox.writable "+w+" is outside the project, honoured only in the user's config")
				continue
			}
			c.Sandbox.Writable = append(c.Sandbox.Writable, w)
		}
	}
}

type compactLayer struct {
	Threshold *float64 `yaml:"threshold"`
	Window    *int     `yaml:"window"`
}

type permissionsLayer struct {
	AllowAll *bool    `yaml:"allow_all"`
	Allow    []string `yaml:"allow"`
	Deny     []string `yaml:"deny"`
	// where each rule is written, "file:line" (set by parse)
	allowFrom, denyFrom []string
}

// apply merges l over c: a scalar the layer sets replaces c's; an MCP server replaces
// c's server of the same name; hooks and permission rules are added to c's, so that a
// project adds to the user's hooks and cannot drop the user's deny rules.
func (l *layer) apply(c *Config) {
	set(&c.Provider, l.Provider)
	if l.Model != nil {
		set(&c.Model, l.Model.Name)
		set(&c.StreamIdleTimeout, l.Model.StreamIdleTimeout)
		set(&c.FirstByteTimeout, l.Model.FirstByteTimeout)
		set(&c.PingTimeout, l.Model.PingTimeout)
		set(&c.ResponseTimeout, l.Model.ResponseTimeout)
		set(&c.MaxRetryAfter, l.Model.MaxRetryAfter)
	}
	if l.Models != nil {
		set(&c.Models.Fast, l.Models.Fast)
		set(&c.Models.Good, l.Models.Good)
	}
	set(&c.MaxOutput, l.MaxOutput)
	set(&c.PreviewLines, l.PreviewLines)
	if l.SkillsDir != nil {
		c.SkillsDir = slices.Clone([]string(*l.SkillsDir))
	}
	set(&c.EditTools, l.EditTools)
	if l.Tools != nil {
		set(&c.Tools.Defer, l.Tools.Defer)
		set(&c.Tools.Search, l.Tools.Search)
	}
	if l.Bash != nil {
		set(&c.Bash.Timeout, l.Bash.Timeout)
	}
	if l.Checkpoints != nil {
		if l.Checkpoints.Enabled != nil {
			c.Checkpoints.Off = !*l.Checkpoints.Enabled
		}
		set(&c.Checkpoints.MaxFileMB, l.Checkpoints.MaxFileMB)
	}
	if l.Compact != nil {
		set(&c.Compact.Threshold, l.Compact.Threshold)
		set(&c.Compact.Window, l.Compact.Window)
	}
	for name, srv := range l.MCPServers {
		c.addMCPServer(name, srv)
	}
	if len(l.sections) > 0 && len(c.sections) < len(sections) {
		c.sections = c.sectionValues()
	}
	for i, sl := range l.sections {
		if sl != nil {
			sections[i].merge(sl, c.sections[i])
		}
	}
	for event, ms := range l.Hooks {
		if c.Hooks == nil {
			c.Hooks = map[string][]HookMatcher{}
		}
		c.Hooks[event] = append(c.Hooks[event], ms...)
	}
	if p := l.Permissions; p != nil {
		set(&c.Permissions.AllowAll, p.AllowAll)
		c.Permissions.Allow = append(c.Permissions.Allow, p.Allow...)
		c.Permissions.Deny = append(c.Permissions.Deny, p.Deny...)
		c.Permissions.allowFrom = append(c.Permissions.allowFrom, p.allowFrom...)
		c.Permissions.denyFrom = append(c.Permissions.denyFrom, p.denyFrom...)
	}
	set(&c.PermissionMode, l.PermissionMode)
	set(&c.MaxTurns, l.MaxTurns)
	set(&c.SystemPrompt, l.SystemPrompt)
	set(&c.AppendSystemPrompt, l.AppendSystemPrompt)
	if l.Plugins != nil {
		c.PluginDirs = append(c.PluginDirs, *l.Plugins...)
	}
}

func set[T any](dst *T, v *T) {
	if v != nil {
		*dst = *v
	}
}
