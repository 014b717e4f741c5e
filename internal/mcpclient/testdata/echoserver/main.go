// Command echoserver is a small MCP server over stdio for mcpclient's tests. Its tools
// echo, add, fail, sleep (saying so on stderr), draw a PNG, embed a resource, tell its pid, start a
// grandchild, crash, list the client's roots, and tell an environment variable, its working
// folder and its arguments. Flags make it exit at once (-exit), never answer (-hang), or list its
// tools a few per page (-page). Its prompt review takes file and focus.
package main

import (
	"bytes"
	"context"
	"flag"
	"fmt"
	"image"
	"image/color"
	"image/png"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

type echoIn struct {
	Text string `json:"text" jsonschema:"the text to echo"`
}

type addIn struct {
	A float64 `json:"a"`
	B float64 `json:"b"`
}

type slowIn struct {
	MS int `json:"ms" jsonschema:"how long to sleep, in milliseconds"`
}

type envIn struct {
	Name string `json:"name" jsonschema:"the variable's name"`
}

type none struct{}

func text(s string) *mcp.CallToolResult {
	return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: s}}}
}

// listRoots asks the client of req for its roots the way the 2026-07-28 protocol
// asks (a result of input requests the client fulfils, then the call again); the SDK
// turns that into a roots/list request for a client of an earlier protocol.
//
//lint:ignore SA1019 roots are what the tests check the client answers
func listRoots(_ context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, any, error) {
	answer, ok := req.Params.InputResponses["roots"].(*mcp.ListRootsResult)
	if !ok {
		return &mcp.CallToolResult{InputRequests: mcp.InputRequestMap{"roots": &mcp.ListRootsParams{}}}, nil, nil
	}
	var uris []string
	for _, r := range answer.Roots {
		uris = append(uris, r.URI)
	}
	return text(strings.Join(uris, "\n")), nil, nil
}

func main() {
	exit := flag.Bool("exit", false, "exit at once, saying why on stderr")
	hang := flag.Bool("hang", false, "never answer")
	page := flag.Int("page", 0, "tools per page of the listing")
	flag.Parse()
	switch {
	case *exit:
		fmt.Fprintln(os.Stderr, "echoserver: told to exit at once")
		os.Exit(3)
	case *hang:
		time.Sleep(time.Hour)
		return
	}

	s := mcp.NewServer(&mcp.Implementation{Name: "echoserver", Version: "1"}, &mcp.ServerOptions{PageSize: *page})
	mcp.AddTool(s, &mcp.Tool{Name: "echo", Description: "Echoes its text."},
		func(_ context.Context, _ *mcp.CallToolRequest, in echoIn) (*mcp.CallToolResult, any, error) {
			return text(in.Text), nil, nil
		})
	mcp.AddTool(s, &mcp.Tool{Name: "add", Description: "Adds two numbers."},
		func(_ context.Context, _ *mcp.CallToolRequest, in addIn) (*mcp.CallToolResult, any, error) {
			return text(strconv.FormatFloat(in.A+in.B, 'g', -1, 64)), nil, nil
		})
	mcp.AddTool(s, &mcp.Tool{Name: "fail", Description: "Always fails."},
		func(_ context.Context, _ *mcp.CallToolRequest, _ none) (*mcp.CallToolResult, any, error) {
			r := text("it failed, as asked")
			r.IsError = true
			return r, nil, nil
		})
	mcp.AddTool(s, &mcp.Tool{Name: "slow", Description: "Sleeps, unless cancelled."},
		func(ctx context.Context, _ *mcp.CallToolRequest, in slowIn) (*mcp.CallToolResult, any, error) {
			// Said so that a test can act while the call is in flight.
			fmt.Fprintln(os.Stderr, "echoserver: slow began")
			select {
			case <-time.After(time.Duration(in.MS) * time.Millisecond):
				return text("slept"), nil, nil
			case <-ctx.Done():
				fmt.Fprintln(os.Stderr, "echoserver: slow was cancelled")
				return nil, nil, ctx.Err()
			}
		})
	mcp.AddTool(s, &mcp.Tool{Name: "image", Description: "Draws a tiny PNG."},
		func(_ context.Context, _ *mcp.CallToolRequest, _ none) (*mcp.CallToolResult, any, error) {
			img := image.NewRGBA(image.Rect(0, 0, 2, 2))
			img.Set(0, 0, color.RGBA{255, 0, 0, 255})
			var b bytes.Buffer
			if err := png.Encode(&b, img); err != nil {
				return nil, nil, err
			}
			return &mcp.CallToolResult{Content: []mcp.Content{
				&mcp.TextContent{Text: "a red dot"},
				&mcp.ImageContent{MIMEType: "image/png", Data: b.Bytes()},
			}}, nil, nil
		})
	mcp.AddTool(s, &mcp.Tool{Name: "resource", Description: "Embeds a text resource."},
		func(_ context.Context, _ *mcp.CallToolRequest, _ none) (*mcp.CallToolResult, any, error) {
			return &mcp.CallToolResult{Content: []mcp.Content{
				&mcp.EmbeddedResource{Resource: &mcp.ResourceContents{URI: "file:///notes.txt", MIMEType: "text/plain", Text: "the notes"}},
			}}, nil, nil
		})
	mcp.AddTool(s, &mcp.Tool{Name: "pid", Description: "Tells the server's pid."},
		func(_ context.Context, _ *mcp.CallToolRequest, _ none) (*mcp.CallToolResult, any, error) {
			return text(strconv.Itoa(os.Getpid())), nil, nil
		})
	type spawnArgs struct {
		Seconds string `json:"seconds,omitempty"`
	}
	mcp.AddTool(s, &mcp.Tool{Name: "spawn", Description: "Starts a long sleep (60 s, or seconds) in the background and tells its pid."},
		func(_ context.Context, _ *mcp.CallToolRequest, in spawnArgs) (*mcp.CallToolResult, any, error) {
			if in.Seconds == "" {
				in.Seconds = "60"
			}
			cmd := exec.Command("sleep", in.Seconds)
			if err := cmd.Start(); err != nil {
				return nil, nil, err
			}
			go func() { _ = cmd.Wait() }()
			return text(strconv.Itoa(cmd.Process.Pid)), nil, nil
		})
	mcp.AddTool(s, &mcp.Tool{Name: "crash", Description: "Exits mid-call."},
		func(_ context.Context, _ *mcp.CallToolRequest, _ none) (*mcp.CallToolResult, any, error) {
			fmt.Fprintln(os.Stderr, "echoserver: crashing as asked")
			os.Exit(2)
			return nil, nil, nil
		})
	mcp.AddTool(s, &mcp.Tool{Name: "weird name!", Description: "Has a name to sanitise."},
		func(_ context.Context, _ *mcp.CallToolRequest, _ none) (*mcp.CallToolResult, any, error) {
			return text("weird"), nil, nil
		})
	mcp.AddTool(s, &mcp.Tool{Name: "roots", Description: "Asks the client for its roots and tells their URIs, one a line."},
		func(ctx context.Context, req *mcp.CallToolRequest, _ none) (*mcp.CallToolResult, any, error) {
			return listRoots(ctx, req)
		})
	mcp.AddTool(s, &mcp.Tool{Name: "env", Description: "Tells the value of an environment variable."},
		func(_ context.Context, _ *mcp.CallToolRequest, in envIn) (*mcp.CallToolResult, any, error) {
			v, ok := os.LookupEnv(in.Name)
			if !ok {
				return text("(unset)"), nil, nil
			}
			return text(v), nil, nil
		})
	mcp.AddTool(s, &mcp.Tool{Name: "whereami", Description: "Tells the server's working folder and its arguments."},
		func(_ context.Context, _ *mcp.CallToolRequest, _ none) (*mcp.CallToolResult, any, error) {
			wd, err := os.Getwd()
			if err != nil {
				return nil, nil, err
			}
			return text(wd + "\n" + strings.Join(os.Args[1:], " ")), nil, nil
		})
	s.AddPrompt(&mcp.Prompt{Name: "review", Description: "Reviews a file.", Arguments: []*mcp.PromptArgument{
		{Name: "file", Description: "the file to review", Required: true}, {Name: "focus"}}},
		func(_ context.Context, req *mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
			a := req.Params.Arguments
			return &mcp.GetPromptResult{Messages: []*mcp.PromptMessage{{Role: "user",
				Content: &mcp.TextContent{Text: "Review " + a["file"] + " for " + a["focus"] + "."}}}}, nil
		})
	if err := s.Run(context.Background(), &mcp.StdioTransport{}); err != nil {
		fmt.Fprintln(os.Stderr, "echoserver:", err)
		os.Exit(1)
	}
}
