package mcpclient

import (
	"net/http"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// conn is one server's connection: its session, and the process or HTTP transport
// behind it.
type conn struct {
	name    string
	session *mcp.ClientSession // nil until connected
	proc    *stdioProc         // stdio servers only
	http    *http.Transport    // HTTP servers only

	closeOnce sync.Once
}

// lastWords returns the last line a stdio server wrote on its standard error, or "".
func (c *conn) lastWords() string {
	if c.proc == nil {
		return ""
	}
	return c.proc.stderr.lastLine()
}

// lastWordsAfterExit waits a moment for a stdio server that has gone away to finish
// writing its standard error, then returns its last line, or "".
func (c *conn) lastWordsAfterExit() string {
	if c.proc == nil {
		return ""
	}
	c.proc.awaitStderr(time.Second)
	return c.proc.stderr.lastLine()
}

// close ends the session, stops the server's process group and closes idle HTTP
// connections. A stdio server gets closeGrace to exit once its input is closed; then
// its group is killed, grandchildren included. Safe to call more than once.
func (c *conn) close() {
	c.closeOnce.Do(func() {
		if c.session != nil {
			done := make(chan struct{})
			go func() {
				defer close(done)
				_ = c.session.Close()
			}()
			if c.proc != nil {
				grace := time.NewTimer(closeGrace)
				select {
				case <-done:
				case <-grace.C:
					c.proc.kill()
					<-done
				}
				grace.Stop()
			} else {
				<-done
			}
		}
		if c.proc != nil {
			c.proc.kill()
			c.proc.closeStderr()
		}
		if c.http != nil {
			c.http.CloseIdleConnections()
		}
	})
}
