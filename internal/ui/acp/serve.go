package acp

import (
	"context"
	"io"
	"log/slog"
	"time"

	sdk "github.com/coder/acp-go-sdk"

	"github.com/gantry-dev/gantry/internal/app"
)

// Options configure the agent.
type Options struct {
	// App holds what the command line said (provider, model, permission mode, rules,
	// limits, system prompts, store); each session's Cwd comes from the client.
	App app.Options
	// Version is gantry's version, sent as agentInfo.
	Version string
	// Log receives diagnostics (never stdout); nil discards them.
	Log io.Writer
}

// Serve speaks ACP on in and out until in ends or ctx is done, then ends every
// session: running turns are cancelled and their processes killed.
func Serve(ctx context.Context, in io.Reader, out io.Writer, opts Options) error {
	if opts.Log == nil {
		opts.Log = io.Discard
	}
	logger := slog.New(slog.NewTextHandler(opts.Log, &slog.HandlerOptions{Level: slog.LevelWarn}))
	w := newOutput(out)
	pr, pw := io.Pipe()
	ag := newAgent(opts, w, logger)
	conn := sdk.NewAgentSideConnection(ag, w, pr)
	conn.SetLogger(logger)
	ag.conn = conn
	guarded := make(chan error, 1)
	go func() { guarded <- guard(in, pw, w, logger) }()
	select {
	case <-conn.Done():
	case <-ctx.Done():
	}
	ag.closeAll()
	ag.drain(5 * time.Second) // requests read before the end still get their answers
	closing, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	if err := ag.pool.Close(closing); err != nil {
		logger.Warn("a resource did not close cleanly", "err", err)
	}
	cancel()
	_ = pr.CloseWithError(io.EOF)
	select {
	case err := <-guarded:
		return err
	default:
		return nil // in is still open (ctx ended first); its reader ends with the process
	}
}
