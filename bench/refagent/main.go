// Command refagent is the floor of bench/peer's side-by-side run: the least any coding
// agent must do for one prompt. It sends the prompt to an Anthropic Messages endpoint
// (ANTHROPIC_BASE_URL, ANTHROPIC_API_KEY) as a stream, reads the server-sent events
// with plain net/http, runs the tools the model calls — edit (replace one exact string
// in a file) and bash (bash -c) — sends their results back, and prints the final text.
// Nothing else: no configuration, no session store, no sandbox, no permissions.
//
//	ANTHROPIC_BASE_URL=http://127.0.0.1:8080 refagent "fix the test"
package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"strings"
)

// tools is the tools' declaration sent with every request.
var tools = json.RawMessage(`[
{"name":"edit","description":"Replace old_string, which must occur exactly once, by new_string in the file.","input_schema":{"type":"object","properties":{"file_path":{"type":"string"},"old_string":{"type":"string"},"new_string":{"type":"string"}},"required":["file_path","old_string","new_string"]}},
{"name":"bash","description":"Run a command with bash -c.","input_schema":{"type":"object","properties":{"command":{"type":"string"}},"required":["command"]}}]`)

// block is one content block of a message, as sent and as received.
type block struct {
	Type      string          `json:"type"`
	Text      string          `json:"text,omitempty"`
	ID        string          `json:"id,omitempty"`
	Name      string          `json:"name,omitempty"`
	Input     json.RawMessage `json:"input,omitempty"`
	ToolUseID string          `json:"tool_use_id,omitempty"`
	Content   string          `json:"content,omitempty"`
	IsError   bool            `json:"is_error,omitempty"`
	partial   strings.Builder
}

type message struct {
	Role    string   `json:"role"`
	Content []*block `json:"content"`
}

func main() {
	if len(os.Args) != 2 {
		fmt.Fprintln(os.Stderr, "usage: refagent PROMPT")
		os.Exit(2)
	}
	msgs := []message{{Role: "user", Content: []*block{{Type: "text", Text: os.Args[1]}}}}
	for turn := 0; turn < 50; turn++ {
		reply, err := ask(msgs)
		if err != nil {
			fmt.Fprintln(os.Stderr, "refagent:", err)
			os.Exit(1)
		}
		msgs = append(msgs, message{Role: "assistant", Content: reply})
		var results []*block
		for _, b := range reply {
			if b.Type == "text" {
				fmt.Println(b.Text)
			}
			if b.Type == "tool_use" {
				out, failed := run(b.Name, b.Input)
				results = append(results, &block{Type: "tool_result", ToolUseID: b.ID, Content: out, IsError: failed})
			}
		}
		if len(results) == 0 {
			return
		}
		msgs = append(msgs, message{Role: "user", Content: results})
	}
}

// ask streams one response and returns its content blocks.
func ask(msgs []message) ([]*block, error) {
	body, err := json.Marshal(map[string]any{"model": "claude-sonnet-4-5", "max_tokens": 8192, "stream": true, "tools": tools, "messages": msgs})
	if err != nil {
		return nil, fmt.Errorf("encoding the request: %w", err)
	}
	req, err := http.NewRequest(http.MethodPost, strings.TrimSuffix(os.Getenv("ANTHROPIC_BASE_URL"), "/")+"/v1/messages", bytes.NewReader(body))
	if err != nil {
		return nil, fmt.Errorf("making the request: %w", err)
	}
	req.Header.Set("content-type", "application/json")
	req.Header.Set("x-api-key", os.Getenv("ANTHROPIC_API_KEY"))
	req.Header.Set("anthropic-version", "2023-06-01")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return nil, fmt.Errorf("sending the request: %w", err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("the model server answered %s", resp.Status)
	}
	var blocks []*block
	sc := bufio.NewScanner(resp.Body)
	sc.Buffer(make([]byte, 64<<10), 16<<20)
	for sc.Scan() {
		data, ok := strings.CutPrefix(sc.Text(), "data: ")
		if !ok {
			continue
		}
		var ev struct {
			Type         string `json:"type"`
			Index        int    `json:"index"`
			ContentBlock *block `json:"content_block"`
			Delta        struct {
				Type        string `json:"type"`
				Text        string `json:"text"`
				PartialJSON string `json:"partial_json"`
			} `json:"delta"`
		}
		if err := json.Unmarshal([]byte(data), &ev); err != nil {
			return nil, fmt.Errorf("decoding an event: %w", err)
		}
		switch ev.Type {
		case "content_block_start":
			ev.ContentBlock.Input = nil
			blocks = append(blocks, ev.ContentBlock)
		case "content_block_delta":
			b := blocks[len(blocks)-1]
			b.Text += ev.Delta.Text
			b.partial.WriteString(ev.Delta.PartialJSON)
		case "content_block_stop":
			if b := blocks[len(blocks)-1]; b.Type == "tool_use" {
				b.Input = json.RawMessage(b.partial.String())
				if len(b.Input) == 0 {
					b.Input = json.RawMessage("{}")
				}
			}
		case "message_stop":
			return blocks, nil
		case "error":
			return nil, fmt.Errorf("the stream reported an error: %s", data)
		}
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("reading the stream: %w", err)
	}
	return nil, fmt.Errorf("the stream ended without message_stop")
}

// run runs one tool call and returns its output and whether it failed.
func run(name string, input json.RawMessage) (string, bool) {
	var in struct {
		FilePath  string `json:"file_path"`
		OldString string `json:"old_string"`
		NewString string `json:"new_string"`
		Command   string `json:"command"`
	}
	if err := json.Unmarshal(input, &in); err != nil {
		return "The input is not valid JSON: " + err.Error(), true
	}
	switch name {
	case "edit":
		data, err := os.ReadFile(in.FilePath)
		if err != nil {
			return err.Error(), true
		}
		if strings.Count(string(data), in.OldString) != 1 {
			return "old_string must occur exactly once in the file.", true
		}
		if err := os.WriteFile(in.FilePath, []byte(strings.Replace(string(data), in.OldString, in.NewString, 1)), 0o644); err != nil {
			return err.Error(), true
		}
		return "Edited " + in.FilePath + ".", false
	case "bash":
		out, err := exec.Command("bash", "-c", in.Command).CombinedOutput()
		if err != nil {
			return string(out) + err.Error(), true
		}
		return string(out), false
	}
	return "There is no tool " + name + ".", true
}
