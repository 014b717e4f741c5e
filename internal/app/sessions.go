package app

import (
	"errors"
	"fmt"
	"strings"

	"github.com/gantry-dev/gantry/internal/session"
)

// StorePath is the session database opts name: Store, else the default.
func StorePath(opts Options) string {
	if opts.Store != "" {
		return opts.Store
	}
	return session.DefaultPath()
}

// storeOpened is what opening the session store on another goroutine gave.
type storeOpened struct {
	st  *session.Store
	err error
}

// openStoreEarly starts opening the session store while New reads the config and
// builds the gate and the provider, which do not need it: SQLite's open and schema
// check are New's longest step (about 3 ms), on the way to the first request.
// openSession takes the store; New's failure before that closes it (dropEarlyStore).
func (a *App) openStoreEarly(path string) {
	ch := make(chan storeOpened, 1)
	go func() {
		st, err := session.Open(path)
		ch <- storeOpened{st, err}
	}()
	a.storeEarly = ch
}

// takeStore is the store openStoreEarly opens, once it is open; without it, the store
// is opened now.
func (a *App) takeStore(path string) (*session.Store, error) {
	if a.storeEarly == nil {
		return session.Open(path)
	}
	r := <-a.storeEarly
	a.storeEarly = nil
	return r.st, r.err
}

// dropEarlyStore closes the store opened early when New failed before it took it.
func (a *App) dropEarlyStore() {
	if a.storeEarly == nil {
		return
	}
	if r := <-a.storeEarly; r.st != nil {
		_ = r.st.Close() // nothing was written to it
	}
	a.storeEarly = nil
}

func (a *App) openSession(opts Options, model string) error {
	st, err := a.takeStore(StorePath(opts))
	var damaged *session.DamagedError
	if errors.As(err, &damaged) {
		return err // its sentence names the store and says what to do
	}
	if err != nil {
		return fmt.Errorf("opening the session store: %w", err)
	}
	a.store = st
	switch {
	case opts.Resume == ResumeLast:
		list, err := st.List(1)
		if err != nil {
			return err
		}
		if len(list) == 0 {
			return errors.New("there is no session to resume yet")
		}
		if a.sess, err = st.Get(list[0].ID); err != nil {
			return err
		}
		a.resumed = true
	case opts.Resume != "":
		if a.sess, err = st.Get(opts.Resume); err != nil {
			return err
		}
		a.resumed = true
	case opts.Continue:
		a.sess, err = st.Last(opts.Cwd)
		if errors.Is(err, session.ErrNotFound) {
			return fmt.Errorf("there is no session in %s to continue", opts.Cwd)
		}
		if err != nil {
			return err
		}
		a.resumed = true
	default:
		if opts.Fork {
			return usageErrorf("--fork goes with --continue or --resume: it copies the session they name")
		}
		a.sess, a.lease, err = st.CreateLeased(session.Meta{Cwd: opts.Cwd, Provider: a.provider, Model: model})
		if err != nil {
			return fmt.Errorf("creating a session: %w", err)
		}
		return nil
	}
	if opts.Fork {
		if a.sess, err = st.Fork(a.sess.ID(), session.Meta{Cwd: opts.Cwd, Provider: a.provider, Model: model}); err != nil {
			return fmt.Errorf("forking a session: %w", err)
		}
	}
	if a.lease, err = a.sess.Lease(); err != nil {
		var held *session.HeldError
		if errors.As(err, &held) {
			how := "--resume"
			if opts.Continue {
				how = "--continue"
			}
			return fmt.Errorf("%w: wait until it ends, or give %s --fork to go on in a new session copied from it", err, how)
		}
		return err
	}
	return nil
}

// unfinishedNotice says which calls of a resumed session gantry stopped in (they
// may have taken effect) and which it stopped before (they never ran).
func unfinishedNotice(us []session.Unfinished) string {
	var ran, not []string
	for _, u := range us {
		d := u.Name + " " + oneLine(u.Input, 80) + " (" + u.ID + ")"
		if u.Started {
			ran = append(ran, d)
		} else {
			not = append(not, d)
		}
	}
	var parts []string
	if len(ran) > 0 {
		parts = append(parts, "gantry stopped while these calls ran, so they may have taken effect (the model is told to check before running them again): "+strings.Join(ran, "; "))
	}
	if len(not) > 0 {
		parts = append(parts, "these calls never ran: "+strings.Join(not, "; "))
	}
	return strings.Join(parts, ". ")
}

func oneLine(s string, n int) string {
	s = strings.Join(strings.Fields(s), " ")
	if r := []rune(s); len(r) > n {
		return string(r[:n-1]) + "…"
	}
	return s
}
