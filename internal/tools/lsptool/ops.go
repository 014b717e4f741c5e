package lsptool

import (
	"context"
	"fmt"
	"strconv"
	"strings"

	"github.com/gantry-dev/gantry/internal/lsp"
	"github.com/gantry-dev/gantry/internal/tool"
	"go.lsp.dev/protocol"
)

type args struct {
	Action string `json:"action" jsonschema_description:"What to ask the language server."`
	File   string `json:"file,omitempty" jsonschema_description:"The file (relative to the working directory); for diagnostics \"*\" runs the project's checker."`
	Line   int    `json:"line,omitempty" jsonschema_description:"1-based line of the symbol, for the navigation actions."`
	Symbol string `json:"symbol,omitempty" jsonschema_description:"The symbol as written on that line (its first occurrence is used)."`
	Query  string `json:"query,omitempty" jsonschema_description:"For symbols: a workspace symbol search (without it, file's symbols are listed)."`
}

// Tool returns the lsp tool over m.
func Tool(m *lsp.Manager, o Options) tool.Tool {
	return tool.New(tool.Def[args]{
		Name:        "lsp",
		Family:      "language servers",
		Label:       "Ask the language server",
		Description: lspDoc,
		Level:       tool.LevelRead,
		Kind:        tool.KindSearch,
		Icon:        "🧭",
		Brief:       true,
		Counter:     tool.CountFileOp,
		Principal:   func(a args) string { return a.File },
		Files:       tool.FilesRead,
		Paths: func(env tool.Env, a args) []string {
			if a.File == "" || a.File == "*" {
				return nil
			}
			return []string{env.Abs(a.File)}
		},
		Title: func(env tool.Env, a args, paths []string) string { return title(env, a, paths) },
		Ops:   ops(m, o),
	})
}

// ops is the lsp tool's table of actions; all of them read.
func ops(m *lsp.Manager, o Options) *tool.Ops[args] {
	read := tool.LevelRead
	// An action at a position: file, line and symbol, never a column.
	at := func(name string, answer func(ctx context.Context, q *query, a args, pos protocol.Position) tool.Result) tool.Op[args] {
		return tool.Op[args]{Name: name, Level: read, Check: atPosition,
			Run: onFile(m, true, func(ctx context.Context, q *query, a args) tool.Result {
				pos, problem := q.file.locate(a.Line, a.Symbol, q.shown)
				if problem != "" {
					return tool.Fail(problem)
				}
				return answer(ctx, q, a, pos)
			})}
	}
	// A lookup: the locations the server gives for the position.
	find := func(name string, l lookup) tool.Op[args] {
		return at(name, func(ctx context.Context, q *query, a args, pos protocol.Position) tool.Result {
			return q.locations(ctx, a.Action, l, pos)
		})
	}
	return &tool.Ops[args]{Arg: "action", List: []tool.Op[args]{
		{Name: "diagnostics", Level: read,
			Check: func(a args) string {
				if a.File == "" {
					return `lsp diagnostics needs a file in "file", or "*" for the whole project.`
				}
				return ""
			},
			Run: func(ctx context.Context, env tool.Env, a args) tool.Result {
				if a.File == "*" {
					return projectCheck(ctx, m, o, env)
				}
				return onFile(m, true, func(ctx context.Context, q *query, _ args) tool.Result { return q.diagnostics(ctx, m) })(ctx, env, a)
			}},
		find("definition", lookup{method: "definition", plural: "definitions",
			ask: func(ctx context.Context, srv protocol.Server, pp protocol.TextDocumentPositionParams) ([]protocol.Location, error) {
				return definitions(srv.Definition(ctx, &protocol.DefinitionParams{TextDocumentPositionParams: pp}))
			}}),
		find("type_definition", lookup{method: "typeDefinition", plural: "type definitions",
			ask: func(ctx context.Context, srv protocol.Server, pp protocol.TextDocumentPositionParams) ([]protocol.Location, error) {
				return definitions(srv.TypeDefinition(ctx, &protocol.TypeDefinitionParams{TextDocumentPositionParams: pp}))
			}}),
		find("implementation", lookup{method: "implementation", plural: "implementations",
			ask: func(ctx context.Context, srv protocol.Server, pp protocol.TextDocumentPositionParams) ([]protocol.Location, error) {
				return definitions(srv.Implementation(ctx, &protocol.ImplementationParams{TextDocumentPositionParams: pp}))
			}}),
		find("references", lookup{method: "references", plural: "references", limit: maxReferences,
			ask: func(ctx context.Context, srv protocol.Server, pp protocol.TextDocumentPositionParams) ([]protocol.Location, error) {
				return srv.References(ctx, &protocol.ReferenceParams{TextDocumentPositionParams: pp,
					Context: protocol.ReferenceContext{IncludeDeclaration: true}})
			}}),
		at("hover", func(ctx context.Context, q *query, _ args, pos protocol.Position) tool.Result {
			return q.hover(ctx, q.posParams(pos))
		}),
		{Name: "symbols", Level: read,
			Check: func(a args) string {
				if a.File == "" && a.Query == "" {
					return `lsp symbols needs a "query" (workspace search) or a "file" (its symbols).`
				}
				return ""
			},
			Run: func(ctx context.Context, env tool.Env, a args) tool.Result {
				if a.Query != "" && a.File == "" {
					ctx, cancel := context.WithTimeout(ctx, queryTimeout)
					defer cancel()
					return workspaceSymbols(ctx, m, env, a.Query)
				}
				// A file's symbols are its outline, which the server has from the
				// document itself: they wait for no diagnostics and for no project to load.
				return onFile(m, false, func(ctx context.Context, q *query, _ args) tool.Result { return q.documentSymbols(ctx) })(ctx, env, a)
			}},
		at("code_actions", func(ctx context.Context, q *query, _ args, pos protocol.Position) tool.Result {
			return q.codeActions(ctx, pos)
		}),
		{Name: "status", Level: read, Kind: tool.KindOther,
			Run: func(_ context.Context, env tool.Env, _ args) tool.Result {
				return tool.Result{Text: strings.Join(m.Status(env.Cwd), "\n")}
			}},
		{Name: "reload", Level: read, Kind: tool.KindOther,
			Run: func(ctx context.Context, env tool.Env, _ args) tool.Result {
				stopped, err := m.Reload(ctx, env.Cwd)
				if err != nil {
					return tool.Fail(fmt.Sprintf("Reloading failed: %v.", err))
				}
				if len(stopped) == 0 {
					return tool.Result{Text: "No language server was running here; the next call starts one."}
				}
				return tool.Result{Text: "Stopped " + strings.Join(stopped, ", ") + "; the next call starts them again."}
			}},
	}}
}

// onFile runs ask on a.File synced with its server, bounded by queryTimeout (whole:
// see open); a note of the server's (it was restarted) leads the answer.
func onFile(m *lsp.Manager, whole bool, ask func(ctx context.Context, q *query, a args) tool.Result) func(ctx context.Context, env tool.Env, a args) tool.Result {
	return func(ctx context.Context, env tool.Env, a args) tool.Result {
		ctx, cancel := context.WithTimeout(ctx, queryTimeout)
		defer cancel()
		q, res := open(ctx, m, env, a.File, whole)
		if q == nil {
			return res
		}
		out := ask(ctx, q, a)
		if q.note != "" {
			out.Text = q.note + "\n" + out.Text
		}
		return out
	}
}

// atPosition refuses an action at a position without its file, line and symbol.
func atPosition(a args) string {
	switch {
	case a.File == "" || a.File == "*":
		return fmt.Sprintf("lsp %s needs a file in \"file\".", a.Action)
	case a.Line < 1:
		return fmt.Sprintf("lsp %s needs a 1-based \"line\".", a.Action)
	case strings.TrimSpace(a.Symbol) == "":
		return fmt.Sprintf("lsp %s needs the \"symbol\" as written on line %d; positions are never guessed.", a.Action, a.Line)
	}
	return ""
}

func title(env tool.Env, a args, paths []string) string {
	what := "LSP " + strings.ReplaceAll(a.Action, "_", " ")
	switch {
	case a.Symbol != "" && len(paths) > 0:
		return what + " of " + a.Symbol + " at " + rel(env.Cwd, paths[0]) + ":" + strconv.Itoa(a.Line)
	case a.Query != "":
		return fmt.Sprintf("%s matching %q", what, a.Query)
	case a.File == "*":
		return what + " of the project"
	case len(paths) > 0:
		return what + " of " + rel(env.Cwd, paths[0])
	}
	return what
}
