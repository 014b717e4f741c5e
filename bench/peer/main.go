// Command peer is the side-by-side peer benchmark "edit and test" (docs/benchmarks.md,
// "Peer bench"): a fake model (internal/llm/fakellm, Anthropic's streaming format) has
// each agent edit a Go file of a small Go project, then run go test with its shell tool,
// then answer. The agents run alternated, one round after another, in one run, so the
// machine's load weighs on each alike. Per agent it reports:
//
//   - start-up: process start → the first request at the model server;
//   - harness RSS: the agent process's own peak resident size (VmHWM of
//     /proc/PID/status, sampled; its children, go test among them, not counted);
//   - after edit: end of the response that carries the edit → the next request;
//   - after go test: end of the response that carries the bash call → the next request,
//     beside go test's own time (timed inside the command by this binary's -time mode)
//     and the difference, the agent's overhead around the command.
//
// Agents: gantry (-gantry; with -base, an older build of it beside), the floor (-floor: bench/refagent, the least an agent must
// do) and crush (-crush; skipped when it has no binary).
//
//	bash bench/peer.sh -rounds 10   (builds gantry and the floor, then runs this)
package main

import (
	"bufio"
	"encoding/json"
	"flag"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/gantry-dev/gantry/internal/llm/fakellm"
)

// agent is one agent under test: how to run it on a project with a prompt, and the
// names and inputs of its edit and shell tools.
type agent struct {
	name string
	bin  string
	// command builds the agent's process for a prompt in dir against the server at url.
	command func(bin, url, dir, prompt string) *exec.Cmd
	// edit is the tool call that fixes calc.go; bash the one that runs a command.
	edit func(dir string) (name, input string)
	bash func(command string) (name, input string)
	// read, when set, is the call that reads calc.go first: an agent that refuses to
	// edit a file it has not read (crush) gets it before the edit.
	read func(dir string) (name, input string)
}

// verbose is -v.
var verbose bool

// smapsOf is -smaps: the agent whose memory map at its peak is printed.
var smapsOf string

// run is one agent's run of the scenario.
type run struct {
	startup, afterEdit, afterTest, testOwn time.Duration
	rssKB                                  int64
}

func main() {
	if len(os.Args) > 2 && os.Args[1] == "-time" {
		timeCommand(os.Args[2], os.Args[3:])
		return
	}
	gantry := flag.String("gantry", "bench/out/gantry", "gantry's binary")
	base := flag.String("base", "", "another gantry binary (an older build), run alternately as gantry-base: before and after in one run")
	floor := flag.String("floor", "bench/out/refagent", "the floor agent's binary (go build ./bench/refagent)")
	crush := flag.String("crush", "", "crush's binary (default: bench/peer/node_modules/.bin/crush, else crush on PATH)")
	rounds := flag.Int("rounds", 5, "rounds; each runs every agent once, in turn")
	flag.BoolVar(&verbose, "v", false, "print each run's figures and the agent's stderr")
	flag.StringVar(&smapsOf, "smaps", "", "an agent's name: print, on stderr, its resident memory per mapping at its peak (the last round's)")
	flag.Parse()
	self, err := os.Executable()
	check(err)
	work, err := os.MkdirTemp("", "peerbench")
	check(err)
	defer os.RemoveAll(work)
	// Warm the Go build cache so that go test's own time is the same for every agent.
	warm := project(work, "warm")
	if out, err := exec.Command("go", "-C", warm, "test", "-count=1", "./...").CombinedOutput(); err == nil {
		check(fmt.Errorf("the unfixed project's test passed: %s", out))
	}

	agents := []agent{gantryAgent(abs(*gantry), work)}
	if *base != "" {
		b := gantryAgent(abs(*base), work)
		b.name = "gantry-base"
		agents = append(agents, b)
	}
	agents = append(agents, floorAgent(abs(*floor)))
	if *crush == "" {
		if _, err := os.Stat("bench/peer/node_modules/.bin/crush"); err == nil {
			*crush = "bench/peer/node_modules/.bin/crush"
		} else if p, err := exec.LookPath("crush"); err == nil {
			*crush = p
		}
	}
	if *crush != "" {
		agents = append(agents, crushAgent(abs(*crush)))
	}
	results := make([][]run, len(agents))
	for r := range *rounds {
		for i, a := range agents {
			results[i] = append(results[i], a.once(self, filepath.Join(work, fmt.Sprintf("%s-%d", a.name, r))))
		}
	}
	fmt.Printf("# peer bench edit-and-test, %d rounds alternated, %s\n\n", *rounds, time.Now().UTC().Format("2006-01-02 15:04 UTC"))
	fmt.Println("| agent | start-up | harness RSS | after edit | after `go test` | go test's own time | overhead around go test |")
	fmt.Println("| --- | ---: | ---: | ---: | ---: | ---: | ---: |")
	for i, a := range agents {
		rs := results[i]
		col := func(f func(run) float64, unit string) string {
			xs := make([]float64, len(rs))
			for j, r := range rs {
				xs[j] = f(r)
			}
			slices.Sort(xs)
			return fmt.Sprintf("%.1f %s (%.1f–%.1f)", xs[len(xs)/2], unit, xs[0], xs[len(xs)-1])
		}
		fmt.Printf("| %s | %s | %s | %s | %s | %s | %s |\n", a.name,
			col(func(r run) float64 { return ms(r.startup) }, "ms"),
			col(func(r run) float64 { return float64(r.rssKB) / 1024 }, "MB"),
			col(func(r run) float64 { return ms(r.afterEdit) }, "ms"),
			col(func(r run) float64 { return ms(r.afterTest) }, "ms"),
			col(func(r run) float64 { return ms(r.testOwn) }, "ms"),
			col(func(r run) float64 { return ms(r.afterTest - r.testOwn) }, "ms"))
	}
}

// once runs the scenario for a in a fresh copy of the project under dir.
func (a agent) once(self, dir string) run {
	proj := project(dir, "proj")
	times := filepath.Join(dir, "go-test-times")
	command := fmt.Sprintf("%s -time %s go test -count=1 ./...", self, times)
	srv := newTimedServer(func(req fakellm.Recorded) (fakellm.Turn, string) {
		if req.Body["tools"] == nil {
			// A request without tools is a side request (a title, a summary).
			return fakellm.Turn{Parts: []fakellm.Part{fakellm.Text("Fix the sum")}}, "side"
		}
		results := toolResults(req.Body)
		if a.read != nil {
			if results == 0 {
				name, input := a.read(proj)
				return fakellm.Turn{Parts: []fakellm.Part{fakellm.Text("Let me read it."), fakellm.ToolCall("call_read", name, input)}}, "read"
			}
			results--
		}
		switch results {
		case 0:
			name, input := a.edit(proj)
			return fakellm.Turn{Parts: []fakellm.Part{fakellm.Text("Add subtracts; I will fix it."), fakellm.ToolCall("call_edit", name, input)}}, "edit"
		case 1:
			name, input := a.bash(command)
			return fakellm.Turn{Parts: []fakellm.Part{fakellm.Text("Now the tests."), fakellm.ToolCall("call_test", name, input)}}, "bash"
		}
		return fakellm.Turn{Parts: []fakellm.Part{fakellm.Text("Fixed: Add adds, and go test passes.")}}, "final"
	})
	defer srv.close()
	cmd := a.command(a.bin, srv.url, proj, "Fix Add in calc.go and run the tests.")
	start := time.Now()
	check(cmd.Start())
	peak := make(chan int64)
	go func() { peak <- sampleHWM(cmd.Process.Pid, a.name == smapsOf) }()
	if err := cmd.Wait(); err != nil {
		check(fmt.Errorf("%s: %v\n%s", a.name, err, cmd.Stderr))
	}
	r := run{rssKB: <-peak}
	if verbose {
		fmt.Fprintf(os.Stderr, "%s: peak RSS %d kB\n%s", a.name, r.rssKB, cmd.Stderr)
	}
	data, err := os.ReadFile(filepath.Join(proj, "calc.go"))
	check(err)
	if !strings.Contains(string(data), "a + b") {
		check(fmt.Errorf("%s did not edit calc.go", a.name))
	}
	t0, t1 := readTimes(times)
	r.testOwn = t1.Sub(t0)
	srv.mu.Lock()
	defer srv.mu.Unlock()
	r.startup = srv.events[0].arrived.Sub(start)
	r.afterEdit = srv.after("edit")
	r.afterTest = srv.after("bash")
	return r
}

// project writes the Go project with its bug under dir/name and returns its path.
func project(dir, name string) string {
	p := filepath.Join(dir, name)
	check(os.MkdirAll(p, 0o755))
	check(os.WriteFile(filepath.Join(p, "go.mod"), []byte("module example.com/calc\n\ngo 1.22\n"), 0o644))
	check(os.WriteFile(filepath.Join(p, "calc.go"), []byte("// Package calc adds.\npackage calc\n\n// Add returns the sum of a and b.\nfunc Add(a, b int) int {\n\treturn a - b\n}\n"), 0o644))
	check(os.WriteFile(filepath.Join(p, "calc_test.go"), []byte("package calc\n\nimport \"testing\"\n\nfunc TestAdd(t *testing.T) {\n\tif got := Add(2, 3); got != 5 {\n\t\tt.Fatalf(\"Add(2, 3) = %d, want 5\", got)\n\t}\n}\n"), 0o644))
	return p
}

// toolResults counts the tool_result blocks in a request's messages.
func toolResults(body map[string]any) int {
	n := 0
	msgs, _ := body["messages"].([]any)
	for _, m := range msgs {
		content, _ := m.(map[string]any)["content"].([]any)
		for _, c := range content {
			if b, _ := c.(map[string]any); b["type"] == "tool_result" {
				n++
				if verbose {
					fmt.Fprintf(os.Stderr, "tool result: %v\n", b["content"])
				}
			}
		}
	}
	return n
}

// sampleHWM reads the peak resident size of pid every millisecond until it exits and
// returns the last value read, in kB. With smaps, it keeps the process's memory map
// each time the peak rises and prints the last one kept, by resident size.
func sampleHWM(pid int, smaps bool) int64 {
	var last int64
	var atPeak []byte
	defer func() {
		if smaps {
			printSmaps(atPeak)
		}
	}()
	path := fmt.Sprintf("/proc/%d/status", pid)
	for {
		data, err := os.ReadFile(path)
		if err != nil {
			return last
		}
		_, rest, ok := strings.Cut(string(data), "VmHWM:")
		if !ok {
			return last // a zombie: its memory is gone
		}
		f := strings.Fields(rest)
		if v, err := strconv.ParseInt(f[0], 10, 64); err == nil {
			if smaps && v > last {
				if m, err := os.ReadFile(fmt.Sprintf("/proc/%d/smaps", pid)); err == nil {
					atPeak = m
				}
			}
			last = v
		}
		time.Sleep(time.Millisecond)
	}
}

// printSmaps prints the mappings of a /proc/PID/smaps text with their resident and
// anonymous sizes, the largest first.
func printSmaps(data []byte) {
	type mapping struct {
		name      string
		rss, anon int64
	}
	var ms []mapping
	var total, anon int64
	for _, line := range strings.Split(string(data), "\n") {
		f := strings.Fields(line)
		switch {
		case len(f) >= 5 && strings.Contains(f[0], "-") && !strings.HasSuffix(f[0], ":"):
			name := "[anon]"
			if len(f) >= 6 {
				name = f[5]
			}
			ms = append(ms, mapping{name: f[1] + " " + name})
		case len(f) >= 2 && len(ms) > 0 && (f[0] == "Rss:" || f[0] == "Anonymous:"):
			v, _ := strconv.ParseInt(f[1], 10, 64)
			if f[0] == "Rss:" {
				ms[len(ms)-1].rss += v
				total += v
			} else {
				ms[len(ms)-1].anon += v
				anon += v
			}
		}
	}
	slices.SortFunc(ms, func(a, b mapping) int { return int(b.rss - a.rss) })
	fmt.Fprintf(os.Stderr, "resident at the peak: %d kB, of which anonymous %d kB\n", total, anon)
	for _, m := range ms {
		if m.rss > 0 {
			fmt.Fprintf(os.Stderr, "%8d kB %8d kB anon  %s\n", m.rss, m.anon, m.name)
		}
	}
}

// timeCommand runs a command and appends its start and end (Unix nanoseconds) to file.
func timeCommand(file string, argv []string) {
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = os.Stdin, os.Stdout, os.Stderr
	start := time.Now()
	err := cmd.Run()
	end := time.Now()
	if werr := os.WriteFile(file, fmt.Appendf(nil, "%d %d\n", start.UnixNano(), end.UnixNano()), 0o644); werr != nil {
		fmt.Fprintln(os.Stderr, "peer -time:", werr)
		os.Exit(1)
	}
	if err != nil {
		os.Exit(1)
	}
}

func readTimes(file string) (time.Time, time.Time) {
	f, err := os.Open(file)
	check(err)
	defer f.Close()
	var a, b int64
	sc := bufio.NewScanner(f)
	if !sc.Scan() {
		check(fmt.Errorf("%s is empty: go test did not run", file))
	}
	_, err = fmt.Sscan(sc.Text(), &a, &b)
	check(err)
	return time.Unix(0, a), time.Unix(0, b)
}

// timedServer is the fake model server behind a handler that times each request's
// arrival and the end of its response, with the kind of turn it was answered with.
type timedServer struct {
	fake *fakellm.Server
	url  string
	srv  *http.Server

	mu     sync.Mutex
	events []event
}

type event struct {
	kind              string
	arrived, finished time.Time
}

func newTimedServer(respond func(fakellm.Recorded) (fakellm.Turn, string)) *timedServer {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	check(err)
	t := &timedServer{url: "http://" + ln.Addr().String()}
	t.fake = fakellm.NewFunc(func(req fakellm.Recorded) fakellm.Turn {
		turn, kind := respond(req)
		t.mu.Lock()
		t.events[len(t.events)-1].kind = kind
		t.mu.Unlock()
		return turn
	})
	var serial sync.Mutex // one request at a time, so that events[-1] is this one's
	t.srv = &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		serial.Lock()
		defer serial.Unlock()
		t.mu.Lock()
		t.events = append(t.events, event{arrived: time.Now()})
		i := len(t.events) - 1
		t.mu.Unlock()
		t.fake.ServeHTTP(w, r)
		t.mu.Lock()
		t.events[i].finished = time.Now()
		t.mu.Unlock()
	})}
	go func() { _ = t.srv.Serve(ln) }()
	return t
}

// after is the time from the end of the response of kind to the next request that
// continues the conversation (side requests are skipped); t.mu is held.
func (t *timedServer) after(kind string) time.Duration {
	for i, e := range t.events {
		if e.kind != kind {
			continue
		}
		for _, next := range t.events[i+1:] {
			if next.kind != "side" {
				return next.arrived.Sub(e.finished)
			}
		}
	}
	check(fmt.Errorf("no request followed the %s response", kind))
	return 0
}

func (t *timedServer) close() {
	_ = t.srv.Close()
	t.fake.Close()
}

func abs(p string) string {
	a, err := filepath.Abs(p)
	check(err)
	if _, err := os.Stat(a); err != nil {
		check(fmt.Errorf("agent binary: %w", err))
	}
	return a
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }

func check(err error) {
	if err != nil {
		fmt.Fprintln(os.Stderr, "peer:", err)
		os.Exit(1)
	}
}

// quote encodes s as a JSON string.
func quote(s string) string {
	b, err := json.Marshal(s)
	check(err)
	return string(b)
}
