// Command mcpgantry measures gantry mcp (docs/benchmarks.md, "gantry mcp"): the time
// from spawning `gantry mcp` to its answer to initialize, and on to its answer to
// tools/list (which waits for the session that lists the tools), beside spawning `gantry tool
// read_file` to its exit (print mode's tool runner: a whole process for one call); and a
// read_file round trip on a warm MCP connection, beside the same call made in the process
// (the tool's Decode and Run). The JSON-RPC lines are written and read here directly, so
// no client SDK's cost is counted.
//
// With -base, a second gantry binary (an older build) is spawned alternately with the
// first and its spawn rows are printed beside.
//
//	go run ./bench/mcpgantry -n 200 -spawns 20 [-base OLD-GANTRY]
package main

import (
	"bufio"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/gantry-dev/gantry/internal/tool"
	"github.com/gantry-dev/gantry/internal/tools/fs"
)

const initialize = `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"bench","version":"1"}}}`

func main() {
	n := flag.Int("n", 200, "read_file round trips on the warm connection")
	spawns := flag.Int("spawns", 20, "spawns of gantry mcp and of gantry tool")
	bin := flag.String("gantry", "", "the gantry binary (default: built from ./cmd/gantry)")
	base := flag.String("base", "", "another gantry binary spawned alternately, for before and after")
	flag.Parse()
	dir, err := os.MkdirTemp("", "mcpgantry")
	if err != nil {
		fail(err)
	}
	defer os.RemoveAll(dir)
	if *bin == "" {
		*bin = filepath.Join(dir, "gantry")
		if out, err := exec.Command("go", "build", "-o", *bin, "./cmd/gantry").CombinedOutput(); err != nil {
			fail(fmt.Errorf("building gantry: %v\n%s", err, out))
		}
	}
	proj := filepath.Join(dir, "proj")
	if err := os.MkdirAll(proj, 0o755); err != nil {
		fail(err)
	}
	if err := os.WriteFile(filepath.Join(proj, "note.txt"), []byte("a line\nanother line\n"), 0o644); err != nil {
		fail(err)
	}
	env := append(os.Environ(), "GANTRY_DATA_DIR="+filepath.Join(dir, "data"), "GANTRY_CONFIG_DIR="+filepath.Join(dir, "config"))

	var toInit, toList, toolRun, baseInit, baseList []time.Duration
	for range *spawns {
		d, l := spawnToList(*bin, proj, env)
		toInit, toList = append(toInit, d), append(toList, l)
		if *base != "" {
			d, l := spawnToList(*base, proj, env)
			baseInit, baseList = append(baseInit, d), append(baseList, l)
		}
		start := time.Now()
		cmd := exec.Command(*bin, "tool", "read_file", `{"path":"note.txt"}`)
		cmd.Dir, cmd.Env = proj, env
		if out, err := cmd.Output(); err != nil {
			fail(fmt.Errorf("gantry tool read_file: %v: %s", err, out))
		}
		toolRun = append(toolRun, time.Since(start))
	}

	_, s := spawnToInitialize(*bin, proj, env)
	s.send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	var overMCP, direct []time.Duration
	readFile := lookup("read_file")
	tenv := tool.Env{Cwd: proj}
	for i := range *n {
		start := time.Now()
		s.send(fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"read_file","arguments":{"path":"note.txt"}}}`, i+10))
		line := s.read()
		overMCP = append(overMCP, time.Since(start))
		var r struct {
			Result struct{ IsError bool } `json:"result"`
		}
		if json.Unmarshal([]byte(line), &r) != nil || r.Result.IsError {
			fail(fmt.Errorf("read_file over MCP: %s", line))
		}
		start = time.Now()
		inv, msg := readFile.Decode(tenv, json.RawMessage(`{"path":"note.txt"}`))
		if msg != "" {
			fail(fmt.Errorf("%s", msg))
		}
		if res := inv.Run(context.Background()); res.IsError {
			fail(fmt.Errorf("read_file: %s", res.Text))
		}
		direct = append(direct, time.Since(start))
	}
	if err := s.close(); err != nil {
		fail(err)
	}
	fmt.Println("| measurement | median | p90 | range |")
	fmt.Println("| --- | --- | --- | --- |")
	row("`gantry mcp` spawn → initialize answered", toInit)
	row("`gantry mcp` spawn → tools/list answered", toList)
	if *base != "" {
		row("the same, -base binary: spawn → initialize answered", baseInit)
		row("the same, -base binary: spawn → tools/list answered", baseList)
	}
	row("`gantry tool read_file` spawn → exit", toolRun)
	row("read_file round trip, warm MCP connection", overMCP)
	row("read_file in the process (Decode + Run)", direct)
}

type server struct {
	cmd *exec.Cmd
	in  io.WriteCloser
	out *bufio.Reader
}

func spawnToInitialize(bin, dir string, env []string) (time.Duration, *server) {
	start := time.Now()
	cmd := exec.Command(bin, "mcp")
	cmd.Dir, cmd.Env = dir, env
	in, err := cmd.StdinPipe()
	if err != nil {
		fail(err)
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		fail(err)
	}
	if err := cmd.Start(); err != nil {
		fail(err)
	}
	s := &server{cmd: cmd, in: in, out: bufio.NewReaderSize(out, 1<<20)}
	s.send(initialize)
	s.read()
	return time.Since(start), s
}

// spawnToList spawns gantry mcp and times its answers to initialize and to tools/list,
// from the spawn; then it closes it.
func spawnToList(bin, dir string, env []string) (init, list time.Duration) {
	start := time.Now()
	init, s := spawnToInitialize(bin, dir, env)
	s.send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	s.send(`{"jsonrpc":"2.0","id":2,"method":"tools/list"}`)
	if line := s.read(); !json.Valid([]byte(line)) || !strings.Contains(line, `"read_file"`) {
		fail(fmt.Errorf("tools/list: %.200s", line))
	}
	list = time.Since(start)
	if err := s.close(); err != nil {
		fail(err)
	}
	return init, list
}

func (s *server) send(line string) {
	if _, err := io.WriteString(s.in, line+"\n"); err != nil {
		fail(err)
	}
}

func (s *server) read() string {
	line, err := s.out.ReadString('\n')
	if err != nil {
		fail(fmt.Errorf("reading gantry mcp's answer: %v", err))
	}
	return line
}

func (s *server) close() error {
	_ = s.in.Close()
	return s.cmd.Wait()
}

func lookup(name string) tool.Tool {
	for _, t := range fs.Tools(fs.Options{}) {
		if t.Name() == name {
			return t
		}
	}
	fail(fmt.Errorf("no %s", name))
	return nil
}

func row(what string, ds []time.Duration) {
	slices.Sort(ds)
	ms := func(d time.Duration) string { return fmt.Sprintf("%.2f ms", float64(d.Microseconds())/1000) }
	fmt.Printf("| %s | %s | %s | %s–%s |\n", what, ms(ds[len(ds)/2]), ms(ds[len(ds)*9/10]), ms(ds[0]), ms(ds[len(ds)-1]))
}

func fail(err error) {
	fmt.Fprintln(os.Stderr, "mcpgantry:", err)
	os.Exit(1)
}
