package app

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"net/http"
	"reflect"
	"regexp"
	"strings"
	"testing"

	"github.com/invopop/jsonschema"

	"github.com/gantry-dev/gantry/internal/llm"
	"github.com/gantry-dev/gantry/internal/llm/anthropic"
	"github.com/gantry-dev/gantry/internal/llm/fakellm"
	"github.com/gantry-dev/gantry/internal/llm/openai"
	"github.com/gantry-dev/gantry/internal/tool"
)

// TestDescriptionsReachTheModelWhole sends every tool a session knows through each
// provider to the fake model server and compares what each API receives — every
// tool's description and every argument's, nested ones included — with its source:
// the Def's Description and the argument struct's tags (or a type's own JSONSchema).
// A description cut on its way (a comma in a jsonschema tag) fails it.
func TestDescriptionsReachTheModelWhole(t *testing.T) {
	dir := project(t, "", map[string]string{})
	a := open(t, Options{Cwd: dir, Vibe: true})
	var specs []llm.ToolSpec
	args := map[string]reflect.Type{}
	for _, tl := range a.agent.Tools.All() {
		at := tool.ArgsOf(tl)
		if at == nil {
			t.Errorf("%s: its argument type cannot be had (tool.ArgsOf)", tl.Name())
			continue
		}
		specs = append(specs, tl.Spec())
		args[tl.Name()] = at
	}
	if len(specs) < 30 {
		t.Fatalf("only %d tools known: %v", len(specs), a.agent.Tools.All())
	}
	for _, api := range []struct {
		name  string
		new   func(url string, c *http.Client) llm.Provider
		tools func(body map[string]any) map[string]sentTool
	}{
		{"anthropic", func(url string, c *http.Client) llm.Provider {
			return anthropic.New(anthropic.Options{APIKey: "k", BaseURL: url, HTTPClient: c})
		}, anthropicTools},
		{"openai-chat", func(url string, c *http.Client) llm.Provider {
			return openai.NewChat(openai.Options{APIKey: "k", BaseURL: url + "/v1", HTTPClient: c})
		}, chatTools},
		{"openai", func(url string, c *http.Client) llm.Provider {
			return openai.NewResponses(openai.Options{APIKey: "k", BaseURL: url + "/v1", HTTPClient: c})
		}, responsesTools},
	} {
		t.Run(api.name, func(t *testing.T) {
			body := sentBody(t, api.new, specs)
			got := api.tools(body)
			for _, s := range specs {
				sent, ok := got[s.Name]
				if !ok {
					t.Errorf("%s: not in the request's tools", s.Name)
					continue
				}
				if sent.description != s.Description {
					t.Errorf("%s: the tool's description arrives as %q, not as written (%d of %d bytes)", s.Name, clip(sent.description), len(sent.description), len(s.Description))
				}
				for _, m := range compareArgs(s.Name, args[s.Name], sent.schema) {
					t.Error(m)
				}
			}
		})
	}
}

// sentTool is a tool as a request body declares it.
type sentTool struct {
	description string
	schema      map[string]any
}

// sentBody sends one request declaring specs and returns its body as the server
// received it.
func sentBody(t *testing.T, newP func(string, *http.Client) llm.Provider, specs []llm.ToolSpec) map[string]any {
	t.Helper()
	srv := fakellm.New(fakellm.Turn{Parts: []fakellm.Part{fakellm.Text("ok")}})
	tr := &http.Transport{}
	defer func() {
		srv.Close()
		tr.CloseIdleConnections()
	}()
	p := newP(srv.URL(), &http.Client{Transport: tr})
	req := llm.Request{Model: "m", System: "s", Tools: specs, Messages: []llm.Message{{Role: llm.RoleUser, Content: []llm.Block{{Type: llm.BlockText, Text: "hi"}}}}}
	if _, err := p.Stream(context.Background(), req, func(llm.Delta) {}); err != nil {
		t.Fatal(err)
	}
	reqs := srv.Requests()
	if len(reqs) != 1 || reqs[0].Body == nil {
		t.Fatalf("requests: %d", len(reqs))
	}
	return reqs[0].Body
}

func anthropicTools(body map[string]any) map[string]sentTool {
	out := map[string]sentTool{}
	for _, x := range list(body["tools"]) {
		m, _ := x.(map[string]any)
		name, _ := m["name"].(string)
		out[name] = sentTool{description: str(m["description"]), schema: obj(m["input_schema"])}
	}
	return out
}

func chatTools(body map[string]any) map[string]sentTool {
	out := map[string]sentTool{}
	for _, x := range list(body["tools"]) {
		f := obj(obj(x)["function"])
		name, _ := f["name"].(string)
		out[name] = sentTool{description: str(f["description"]), schema: obj(f["parameters"])}
	}
	return out
}

func responsesTools(body map[string]any) map[string]sentTool {
	out := map[string]sentTool{}
	for _, x := range list(body["tools"]) {
		m := obj(x)
		name, _ := m["name"].(string)
		out[name] = sentTool{description: str(m["description"]), schema: obj(m["parameters"])}
	}
	return out
}

// compareArgs walks the argument type beside the schema a request carried and returns
// a sentence for each description that differs from its source, or for a field the
// schema lacks.
func compareArgs(name string, t reflect.Type, schema map[string]any) []string {
	var out []string
	walkArgs(name, t, schema, &out)
	return out
}

var schemaer = reflect.TypeFor[interface{ JSONSchema() *jsonschema.Schema }]()

func walkArgs(path string, t reflect.Type, schema map[string]any, out *[]string) {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if t.Implements(schemaer) {
		// The type writes its own schema: its descriptions are the source.
		var own map[string]any
		b, err := json.Marshal(reflect.Zero(t).Interface().(interface{ JSONSchema() *jsonschema.Schema }).JSONSchema())
		if err == nil {
			err = json.Unmarshal(b, &own)
		}
		if err != nil {
			*out = append(*out, fmt.Sprintf("%s: its own schema: %v", path, err))
			return
		}
		// The field's description comes from its tag (compared above), so only what
		// is inside the type's schema is compared here.
		delete(own, "description")
		sent := maps.Clone(schema)
		delete(sent, "description")
		walkSchema(path, own, sent, out)
		return
	}
	switch t.Kind() {
	case reflect.Slice, reflect.Array:
		walkArgs(path+"[]", t.Elem(), obj(schema["items"]), out)
	case reflect.Map:
		walkArgs(path+"{}", t.Elem(), obj(schema["additionalProperties"]), out)
	case reflect.Struct:
		props := obj(schema["properties"])
		for f := range t.Fields() {
			name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
			if !f.IsExported() || name == "-" {
				continue
			}
			if name == "" {
				name = f.Name
			}
			at := path + "." + name
			prop, ok := props[name].(map[string]any)
			if !ok {
				*out = append(*out, fmt.Sprintf("%s: not in the schema sent", at))
				continue
			}
			if src, sent := fieldDescription(f), str(prop["description"]); src != sent {
				*out = append(*out, fmt.Sprintf("%s: the description arrives as %q, but its source says %q (write it in a jsonschema_description tag, which no comma cuts)", at, sent, src))
			}
			walkArgs(at, f.Type, prop, out)
		}
	}
}

// walkSchema compares the descriptions of a schema a type wrote with those sent.
func walkSchema(path string, src, sent map[string]any, out *[]string) {
	if a, b := str(src["description"]), str(sent["description"]); a != b {
		*out = append(*out, fmt.Sprintf("%s: the description arrives as %q, but its source says %q", path, b, a))
	}
	for k, v := range obj(src["properties"]) {
		walkSchema(path+"."+k, obj(v), obj(obj(sent["properties"])[k]), out)
	}
	if items := obj(src["items"]); items != nil {
		walkSchema(path+"[]", items, obj(sent["items"]), out)
	}
	alts := list(sent["oneOf"])
	for i, alt := range list(src["oneOf"]) {
		var s map[string]any
		if i < len(alts) {
			s = obj(alts[i])
		}
		walkSchema(fmt.Sprintf("%s|%d", path, i), obj(alt), s, out)
	}
}

// tagKey is a keyword of a jsonschema tag that may follow a description.
var tagKey = regexp.MustCompile(`[^\\],(enum|default|minimum|maximum|exclusiveMinimum|exclusiveMaximum|minLength|maxLength|minItems|maxItems|pattern|format|title|example|type|required|nullable|uniqueItems)(=|,|$)`)

// fieldDescription is a field's description as its author wrote it: its
// jsonschema_description tag, else the description= of its jsonschema tag up to the
// next keyword (whatever commas it holds; an escaped comma is a comma).
func fieldDescription(f reflect.StructField) string {
	if d, ok := f.Tag.Lookup("jsonschema_description"); ok {
		return d
	}
	tag := f.Tag.Get("jsonschema")
	i := strings.Index(tag, "description=")
	if i < 0 || (i > 0 && tag[i-1] != ',') {
		return ""
	}
	d := tag[i+len("description="):]
	if loc := tagKey.FindStringIndex(d); loc != nil {
		d = d[:loc[0]+1]
	}
	return strings.ReplaceAll(d, `\,`, ",")
}

func obj(v any) map[string]any {
	m, _ := v.(map[string]any)
	return m
}

func list(v any) []any {
	l, _ := v.([]any)
	return l
}

func str(v any) string {
	s, _ := v.(string)
	return s
}

func clip(s string) string {
	if len(s) > 60 {
		return s[:60] + "…"
	}
	return s
}
