package main

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"strings"
	"syscall"
	"time"

	"github.com/gantry-dev/gantry/internal/llm/fakellm"
)

// rpc is a bare JSON-RPC line client for gantry acp: it answers nothing the agent
// asks (the session runs in yolo mode) and returns responses by id.
type rpc struct {
	in  io.Writer
	out *bufio.Scanner
	id  int
}

func (r *rpc) call(method string, params any) json.RawMessage {
	r.id++
	b, err := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": r.id, "method": method, "params": params})
	check(err)
	_, err = r.in.Write(append(b, '\n'))
	check(err)
	for r.out.Scan() {
		var msg struct {
			ID     *int            `json:"id"`
			Method string          `json:"method"`
			Result json.RawMessage `json:"result"`
			Error  json.RawMessage `json:"error"`
		}
		check(json.Unmarshal(r.out.Bytes(), &msg))
		if msg.ID != nil && *msg.ID == r.id && msg.Method == "" {
			if msg.Error != nil {
				check(fmt.Errorf("%s: %s", method, msg.Error))
			}
			return msg.Result
		}
	}
	check(fmt.Errorf("%s: gantry acp closed its output", method))
	return nil
}

// acp measures gantry acp: spawn to the initialize answer, session/new, and a
// 50-turn prompt's peak RSS.
func (h *harness) acp(runs int) {
	var inits, news []float64
	for i := 0; i < runs; i++ {
		init, created, _ := h.acpSession(nil, "")
		inits, news = append(inits, init), append(news, created)
	}
	fmt.Printf("| gantry acp: spawn to the initialize answer (median of %d) | %.1f ms (min %.1f) | — |\n", runs, median(inits), minOf(inits))
	fmt.Printf("| gantry acp: session/new answered (median of %d) | %.1f ms | — |\n", runs, median(news))
	var turns []fakellm.Turn
	for i := 0; i < 50; i++ {
		turns = append(turns, fakellm.Turn{Parts: []fakellm.Part{fakellm.Text(fmt.Sprintf("Step %d.", i)),
			fakellm.ToolCall(fmt.Sprintf("c%d", i), "bash", fmt.Sprintf(`{"command":"echo turn %d"}`, i))}})
	}
	turns = append(turns, fakellm.Turn{Parts: []fakellm.Part{fakellm.Text("Finished.")}})
	_, _, rss := h.acpSession(turns, "do fifty things")
	fmt.Printf("| gantry acp: peak RSS of a 50-turn prompt | %.1f MB | — |\n", rss)
}

func (h *harness) acpSession(turns []fakellm.Turn, prompt string) (initMS, newMS, rssMB float64) {
	srv := newTimedServer(turns...)
	defer srv.close()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := h.command(ctx, srv.url, "acp", "--permission-mode", "yolo", "--max-turns", "60")
	in, err := cmd.StdinPipe()
	check(err)
	out, err := cmd.StdoutPipe()
	check(err)
	cmd.Stderr = os.Stderr
	sc := bufio.NewScanner(out)
	sc.Buffer(make([]byte, 0, 1<<20), 16<<20)
	c := &rpc{in: in, out: sc}
	start := time.Now()
	check(cmd.Start())
	c.call("initialize", map[string]any{"protocolVersion": 1, "clientCapabilities": map[string]any{}})
	initMS = ms(time.Since(start))
	t := time.Now()
	res := c.call("session/new", map[string]any{"cwd": h.dir, "mcpServers": []any{}})
	newMS = ms(time.Since(t))
	var s struct {
		SessionID string `json:"sessionId"`
	}
	check(json.Unmarshal(res, &s))
	if prompt != "" {
		res = c.call("session/prompt", map[string]any{"sessionId": s.SessionID, "prompt": []any{map[string]any{"type": "text", "text": prompt}}})
		if !strings.Contains(string(res), "end_turn") {
			check(fmt.Errorf("the prompt ended %s", res))
		}
	}
	check(in.Close())
	check(cmd.Wait())
	return initMS, newMS, float64(cmd.ProcessState.SysUsage().(*syscall.Rusage).Maxrss) / 1024
}
