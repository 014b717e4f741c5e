package main

// --output-schema FILE: the final answer of a print-mode run must be a JSON value that
// conforms to the JSON Schema in FILE. The model is told so at the end of the system
// prompt (the same for every request of the run, so the prompt cache keeps it, and
// not left in the conversation for a later --continue without the flag); its answer
// is validated; an answer that does not conform gets one more user turn naming the
// error, and a second failure ends the run with exit status 8.

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"slices"
	"strings"

	"github.com/gantry-dev/gantry/internal/app"
	"github.com/gantry-dev/gantry/internal/face"
	"github.com/google/jsonschema-go/jsonschema"
)

// maxSchemaFile bounds the schema file read: it goes whole into the system prompt.
const maxSchemaFile = 256 << 10

// outputSchema is a schema read from --output-schema, ready to validate.
type outputSchema struct {
	text     string // the file's JSON, compacted, as the model is shown it
	resolved *jsonschema.Resolved
}

// loadSchema reads and checks the schema file at path.
func loadSchema(path string) (*outputSchema, error) {
	f, err := os.Open(path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return nil, errors.New("cannot be read: there is no such file")
	case err != nil:
		return nil, fmt.Errorf("cannot be read: %w", errors.Unwrap(err))
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, maxSchemaFile+1))
	if err != nil {
		return nil, fmt.Errorf("cannot be read: %v", err)
	}
	if len(data) > maxSchemaFile {
		return nil, fmt.Errorf("is larger than %d KB, too large to give the model", maxSchemaFile>>10)
	}
	var s jsonschema.Schema
	if err := json.Unmarshal(data, &s); err != nil {
		var te *json.UnmarshalTypeError
		if errors.As(err, &te) {
			field := te.Field[strings.LastIndexByte(te.Field, '.')+1:]
			return nil, fmt.Errorf("is not a JSON Schema: its key %q holds a JSON %s, which that key does not take", field, te.Value)
		}
		return nil, fmt.Errorf("is not a JSON Schema: %v", err)
	}
	switch s.Schema {
	case "", "http://json-schema.org/draft-07/schema#", "http://json-schema.org/draft-07/schema",
		"https://json-schema.org/draft-07/schema#", "https://json-schema.org/draft/2020-12/schema":
	default:
		return nil, fmt.Errorf("is of the draft %s; gantry validates draft 2020-12 and draft-07", s.Schema)
	}
	resolved, err := s.Resolve(nil)
	if err == nil {
		var raw any
		if err = json.Unmarshal(data, &raw); err == nil {
			err = checkTypes(raw)
		}
	}
	if err != nil {
		return nil, fmt.Errorf("is not a valid JSON Schema: %v", err)
	}
	var compact bytes.Buffer
	if err := json.Compact(&compact, data); err != nil {
		return nil, fmt.Errorf("is not JSON: %v", err)
	}
	return &outputSchema{text: compact.String(), resolved: resolved}, nil
}

// jsonTypes are the names the "type" keyword takes.
var jsonTypes = []string{"null", "boolean", "object", "array", "number", "string", "integer"}

// checkTypes refuses a "type" that names no JSON type anywhere in a schema (the
// library's Resolve does not check the schema against its meta-schema, and a
// misspelt type would fail every answer). The values of enum, const, default and
// examples are data, not schemas, and are left alone.
func checkTypes(v any) error {
	switch v := v.(type) {
	case map[string]any:
		for k, sub := range v {
			switch k {
			case "enum", "const", "default", "examples":
				continue
			case "type":
				names, ok := sub.([]any)
				if s, one := sub.(string); one {
					names, ok = []any{s}, true
				}
				if !ok {
					break // a property named "type": a schema, walked below
				}
				for _, n := range names {
					if s, _ := n.(string); !slices.Contains(jsonTypes, s) {
						return fmt.Errorf("\"type\": %v is not a JSON type (%s)", n, strings.Join(jsonTypes, ", "))
					}
				}
				continue
			}
			if err := checkTypes(sub); err != nil {
				return err
			}
		}
	case []any:
		for _, sub := range v {
			if err := checkTypes(sub); err != nil {
				return err
			}
		}
	}
	return nil
}

// instruction is what the end of the system prompt tells the model.
func (s *outputSchema) instruction() string {
	return "<output-schema>\nThe final answer of this task (your last message, once the work is done) must be " +
		"only a JSON value that conforms to the JSON Schema below: no words before or after it, no code fence. " +
		"A program parses and validates it; nobody reads prose around it.\n\n" + s.text + "\n</output-schema>"
}

// retryPrompt is the one more user turn an answer that does not conform gets.
func retryPrompt(err error) string {
	return "Your final answer does not conform to the output schema: " + err.Error() + ". " +
		"Answer again with only the JSON value the JSON Schema in <output-schema> asks for: no words around it, no code fence."
}

// check validates an answer: a JSON value alone, or a single ```json fenced block
// holding one. It returns the value compacted (its numbers as written).
func (s *outputSchema) check(answer string) (json.RawMessage, error) {
	text := unfence(strings.TrimSpace(answer))
	if text == "" {
		return nil, errors.New("the answer is empty, not JSON")
	}
	dec := json.NewDecoder(strings.NewReader(text))
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, fmt.Errorf("the answer is not JSON (%v)", err)
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, errors.New("the answer has more after its JSON value")
	}
	if err := s.resolved.Validate(v); err != nil {
		return nil, err // "validating root: required: missing properties: [\"count\"]"
	}
	var compact bytes.Buffer
	if err := json.Compact(&compact, []byte(text)); err != nil {
		return nil, fmt.Errorf("the answer is not JSON (%v)", err)
	}
	return compact.Bytes(), nil
}

// unfence returns the inside of text when text is one fenced code block (```json or
// ```), else text.
func unfence(text string) string {
	if !strings.HasPrefix(text, "```") || !strings.HasSuffix(text, "```") || len(text) < 6 {
		return text
	}
	first, rest, ok := strings.Cut(text, "\n")
	if !ok {
		return text
	}
	if lang := strings.TrimSpace(strings.TrimPrefix(first, "```")); lang != "" && !strings.EqualFold(lang, "json") {
		return text
	}
	inner := strings.TrimSuffix(rest, "```")
	if strings.Contains(inner, "```") {
		return text // more than one block
	}
	return strings.TrimSpace(inner)
}

// run runs prompt in a to its end; with --output-schema it validates the answer and,
// when it does not conform, asks once more. It returns the turn's end (the two
// turns' steps and counters summed) and the conforming answer (nil without a schema
// or when none conforms); a bound that stopped it is named (boundOutcome).
func (l *limits) run(ctx context.Context, a *app.App, prompt string) (face.TurnEnded, json.RawMessage) {
	end := boundOutcome(ctx, a.Run(ctx, prompt, nil))
	if l.schema == nil || end.StopReason != "end_turn" {
		return end, nil
	}
	answer, err := l.schema.check(end.Text)
	if err == nil {
		return end, answer
	}
	again := boundOutcome(ctx, a.Run(ctx, retryPrompt(err), nil))
	again.Steps += end.Steps
	again.Counters = end.Counters.Add(again.Counters)
	if again.StopReason != "end_turn" {
		return again, nil
	}
	if answer, err = l.schema.check(again.Text); err != nil {
		again.StopReason = stopBadOutput
		again.Err = fmt.Errorf("the final answer does not conform to --output-schema after one retry: %v", err)
		return again, nil
	}
	return again, answer
}
