// Command harness measures gantry against a local fake model server: start-up time to
// the first model request, the harness's own overhead per turn, peak memory of a
// 50-turn session, a ranged read of a huge file and a 20-edit edit_file. It prints a
// Markdown table of medians; bench/run.sh builds gantry and runs it.
package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/gantry-dev/gantry/internal/llm/fakellm"
)

func main() {
	bin := flag.String("gantry", "gantry", "the gantry binary to measure")
	runs := flag.Int("runs", 20, "repetitions of the start-up measurement")
	sessions := flag.Int("sessions", 5, "repetitions of each 50-turn session")
	bigSize := flag.Int64("big", 2<<30, "size in bytes of the huge file for the read_file measurement (0 skips it)")
	work := flag.String("work", "", "scratch folder (default a temporary one, removed at the end)")
	only := flag.String("only", "", "measure only one face: print, acp or tui")
	crush := flag.String("crush", "", "crush's binary, measured idle beside gantry's terminal UI (default: crush on PATH)")
	flag.Parse()
	dir := *work
	if dir == "" {
		d, err := os.MkdirTemp("", "gantry-bench-")
		check(err)
		defer os.RemoveAll(d)
		dir = d
	}
	h := &harness{bin: *bin, dir: dir}
	fmt.Println("| measure | result | target |")
	fmt.Println("| --- | --- | --- |")
	if *only == "" || *only == "print" {
		h.startup(*runs)
		h.sessions(*sessions, 0)
		h.sessions(*sessions, 200*time.Microsecond)
		h.editFile()
		if *bigSize > 0 {
			h.bigRead(*bigSize)
		}
	}
	if *only == "" || *only == "acp" {
		h.acp(*runs)
	}
	if *only == "" || *only == "tui" {
		h.tui(*runs, *sessions, *crush)
	}
}

type harness struct {
	bin, dir string
}

// timedServer wraps the fake model server to time each request's arrival and the end
// of its response.
type timedServer struct {
	fake *fakellm.Server
	url  string
	srv  *http.Server

	mu       sync.Mutex
	arrivals []time.Time
	finishes []time.Time
}

func newTimedServer(turns ...fakellm.Turn) *timedServer {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	check(err)
	t := &timedServer{fake: fakellm.New(turns...), url: "http://" + ln.Addr().String()}
	t.srv = &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		t.mu.Lock()
		t.arrivals = append(t.arrivals, time.Now())
		t.mu.Unlock()
		t.fake.ServeHTTP(w, r)
		t.mu.Lock()
		t.finishes = append(t.finishes, time.Now())
		t.mu.Unlock()
	})}
	go func() { _ = t.srv.Serve(ln) }()
	return t
}

func (t *timedServer) close() {
	_ = t.srv.Close()
	t.fake.Close()
}

func (h *harness) command(ctx context.Context, srvURL string, args ...string) *exec.Cmd {
	cmd := exec.CommandContext(ctx, h.bin, args...)
	cmd.Dir = h.dir
	cmd.Env = append(os.Environ(), "ANTHROPIC_BASE_URL="+srvURL, "ANTHROPIC_API_KEY=bench",
		"GANTRY_DATA_DIR="+filepath.Join(h.dir, ".data"), "GANTRY_CONFIG_DIR="+filepath.Join(h.dir, ".config"),
		"GANTRY_PROVIDER=anthropic", "NO_COLOR=1")
	return cmd
}

// startup: process start to the first request at the fake server.
func (h *harness) startup(runs int) {
	var times []float64
	for i := 0; i < runs; i++ {
		srv := newTimedServer(fakellm.Turn{Parts: []fakellm.Part{fakellm.Text("ok")}})
		cmd := h.command(context.Background(), srv.url, "-p", "hello")
		start := time.Now()
		check(cmd.Run())
		srv.mu.Lock()
		times = append(times, ms(srv.arrivals[0].Sub(start)))
		srv.mu.Unlock()
		srv.close()
	}
	fmt.Printf("| start-up to first model request (median of %d) | %.1f ms (min %.1f, max %.1f) | < 20 ms |\n", runs, median(times), minOf(times), maxOf(times))
}

// session50: a 50-turn session; overhead = next request − end of response − tool time.
// pace spaces the events of each response as a model generating tokens does; with no
// pace the whole response arrives in one burst and gantry's decoding of it falls after
// the response's end, so it counts as overhead.
func (h *harness) session50(pace time.Duration) (overhead []float64, rssMB float64) {
	check(os.WriteFile(filepath.Join(h.dir, "small.txt"), []byte(strings.Repeat("a line of text\n", 40)), 0o644))
	var turns []fakellm.Turn
	for i := 0; i < 50; i++ {
		call := fakellm.ToolCall(fmt.Sprintf("c%d", i), "read_file", fmt.Sprintf(`{"path":"small.txt","start":%d,"end":%d}`, i%40+1, i%40+1))
		if i%5 == 4 {
			call = fakellm.ToolCall(fmt.Sprintf("c%d", i), "bash", fmt.Sprintf(`{"command":"echo turn %d"}`, i))
		}
		turns = append(turns, fakellm.Turn{Parts: []fakellm.Part{fakellm.Text(fmt.Sprintf("Step %d.", i)), call}, Delay: pace})
	}
	turns = append(turns, fakellm.Turn{Parts: []fakellm.Part{fakellm.Text("Finished.")}})
	srv := newTimedServer(turns...)
	defer srv.close()
	cmd := h.command(context.Background(), srv.url, "-p", "do fifty things", "--permission-mode", "yolo", "--output-format", "stream-json", "--max-turns", "60")
	var out bytes.Buffer
	cmd.Stdout = &out
	check(cmd.Run())
	durations := toolDurations(out.Bytes())
	srv.mu.Lock()
	defer srv.mu.Unlock()
	if len(srv.arrivals) != 51 || len(durations) != 50 {
		fail(fmt.Sprintf("50-turn session: %d requests, %d tool results", len(srv.arrivals), len(durations)))
	}
	var over []float64
	for i := 0; i < 50; i++ {
		gap := srv.arrivals[i+1].Sub(srv.finishes[i]) - durations[i]
		over = append(over, ms(gap))
	}
	return over, float64(cmd.ProcessState.SysUsage().(*syscall.Rusage).Maxrss) / 1024
}

// sessions runs n 50-turn sessions and reports the median overhead of all their
// turns, the range of the sessions' own medians, and the peak RSS.
func (h *harness) sessions(n int, pace time.Duration) {
	var all, medians, rss []float64
	for i := 0; i < n; i++ {
		over, r := h.session50(pace)
		all = append(all, over...)
		medians = append(medians, median(over))
		rss = append(rss, r)
	}
	how := "events in one burst"
	if pace > 0 {
		how = fmt.Sprintf("events %v apart", pace)
	}
	fmt.Printf("| harness overhead per turn, %d × 50-turn sessions, %s | median %.3f ms, p90 %.3f; per-session medians %.3f–%.3f | < 1 ms |\n",
		n, how, median(all), percentile(all, 0.9), minOf(medians), maxOf(medians))
	fmt.Printf("| peak RSS of a 50-turn session, %s | %.1f MB (max of %d: %.1f) | < 30 MB |\n", how, median(rss), n, maxOf(rss))
}

// toolDurations reads duration_us of each tool_finished event of a stream-json output.
func toolDurations(out []byte) []time.Duration {
	var ds []time.Duration
	sc := bufio.NewScanner(bytes.NewReader(out))
	sc.Buffer(make([]byte, 1<<20), 64<<20)
	for sc.Scan() {
		var ev struct {
			Type       string `json:"type"`
			DurationUS int64  `json:"duration_us"`
		}
		if json.Unmarshal(sc.Bytes(), &ev) == nil && ev.Type == "tool_finished" {
			ds = append(ds, time.Duration(ev.DurationUS)*time.Microsecond)
		}
	}
	return ds
}

// oneTool runs gantry on a one-call script and returns the tool's time and peak RSS.
func (h *harness) oneTool(name, input string) (time.Duration, int64, string) {
	srv := newTimedServer(
		fakellm.Turn{Parts: []fakellm.Part{fakellm.ToolCall("t1", name, input)}},
		fakellm.Turn{Parts: []fakellm.Part{fakellm.Text("done")}},
	)
	defer srv.close()
	cmd := h.command(context.Background(), srv.url, "-p", "go", "--permission-mode", "yolo", "--output-format", "stream-json")
	var out bytes.Buffer
	cmd.Stdout = &out
	check(cmd.Run())
	ds := toolDurations(out.Bytes())
	if len(ds) != 1 {
		fail(name + ": no tool result")
	}
	return ds[0], cmd.ProcessState.SysUsage().(*syscall.Rusage).Maxrss, out.String()
}

func (h *harness) editFile() {
	var b strings.Builder
	for i := 1; i <= 50000; i++ {
		fmt.Fprintf(&b, "line %d: some ordinary source text here\n", i)
	}
	check(os.WriteFile(filepath.Join(h.dir, "big.txt"), []byte(b.String()), 0o644))
	var edits []string
	for i := 0; i < 20; i++ {
		n := 1000 + i*2400
		edits = append(edits, fmt.Sprintf(`{"old":"line %d: some","new":"line %d: EDITED"}`, n, n))
	}
	var times []float64
	for i := 0; i < 5; i++ {
		d, _, out := h.oneTool("edit_file", `{"path":"big.txt","edits":[`+strings.Join(edits, ",")+`],"dry_run":true}`)
		if !strings.Contains(out, "20 edits") {
			fail("edit_file did not apply 20 edits: " + out[:min(len(out), 400)])
		}
		times = append(times, ms(d))
	}
	d, rss, _ := h.oneTool("edit_file", `{"path":"big.txt","edits":[`+strings.Join(edits, ",")+`]}`)
	fmt.Printf("| edit_file, 20 edits in a 50,000-line file (written) | %.1f ms, peak RSS %.1f MB (dry run median %.1f ms) | — |\n", ms(d), float64(rss)/1024, median(times))
}

func (h *harness) bigRead(size int64) {
	path := filepath.Join(h.dir, "huge.log")
	writeHuge(path, size)
	defer os.Remove(path)
	d, rss, out := h.oneTool("read_file", `{"path":"huge.log","start":1000000,"end":1000050}`)
	if !strings.Contains(out, "entry 1000000 ") {
		fail("read_file did not return line 1,000,000")
	}
	start := time.Now()
	sed := exec.Command("sed", "-n", "1000000,1000050p;1000050q", path)
	sed.Stdout = nil
	check(sed.Run())
	sedTime := time.Since(start)
	fmt.Printf("| read_file lines 1,000,000–1,000,050 of a %.1f GB file | %.1f ms (sed -n: %.1f ms), peak RSS %.1f MB | RSS < 50 MB |\n",
		float64(size)/(1<<30), ms(d), ms(sedTime), float64(rss)/1024)
}

// writeHuge writes numbered log lines up to size bytes.
func writeHuge(path string, size int64) {
	if st, err := os.Stat(path); err == nil && st.Size() >= size {
		return
	}
	f, err := os.Create(path)
	check(err)
	w := bufio.NewWriterSize(f, 1<<20)
	var n int64
	for i := 1; n < size; i++ {
		k, _ := fmt.Fprintf(w, "entry %d level=info msg=\"a log line of moderate length for the benchmark\" took=%dms\n", i, i%997)
		n += int64(k)
	}
	check(w.Flush())
	check(f.Close())
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }

func median(xs []float64) float64 { return percentile(xs, 0.5) }

func percentile(xs []float64, p float64) float64 {
	s := append([]float64(nil), xs...)
	sort.Float64s(s)
	return s[int(float64(len(s)-1)*p+0.5)]
}

func minOf(xs []float64) float64 { return percentile(xs, 0) }
func maxOf(xs []float64) float64 { return percentile(xs, 1) }

func check(err error) {
	if err != nil {
		fail(err.Error())
	}
}

func fail(msg string) {
	fmt.Fprintln(os.Stderr, "bench:", msg)
	os.Exit(1)
}
