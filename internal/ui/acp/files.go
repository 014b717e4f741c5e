package acp

import (
	"context"
	"errors"

	sdk "github.com/coder/acp-go-sdk"
)

// clientFiles is the editor's file access (fs/read_text_file, fs/write_text_file),
// as the file tools' tool.Editor.
type clientFiles struct {
	s           *session
	read, write bool
}

func (f *clientFiles) CanRead() bool  { return f.read }
func (f *clientFiles) CanWrite() bool { return f.write }

// ReadText implements tool.Editor.
func (f *clientFiles) ReadText(ctx context.Context, path string) (string, error) {
	if !f.read {
		return "", errors.New("the editor does not offer reading files")
	}
	resp, err := f.s.ag.conn.ReadTextFile(ctx, sdk.ReadTextFileRequest{SessionId: sdk.SessionId(f.s.id), Path: path})
	if err != nil {
		return "", clientError(err)
	}
	return resp.Content, nil
}

// WriteText implements tool.Editor.
func (f *clientFiles) WriteText(ctx context.Context, path, content string) error {
	if !f.write {
		return errors.New("the editor does not offer writing files")
	}
	_, err := f.s.ag.conn.WriteTextFile(ctx, sdk.WriteTextFileRequest{SessionId: sdk.SessionId(f.s.id), Path: path, Content: content})
	return clientError(err)
}

// clientError makes a JSON-RPC error from the client read as a sentence's end.
func clientError(err error) error {
	var re *sdk.RequestError
	if errors.As(err, &re) {
		msg := re.Message
		if d, ok := re.Data.(map[string]any); ok {
			for _, k := range []string{"error", "message", "details"} {
				if s, ok := d[k].(string); ok && s != "" {
					msg += ": " + s
					break
				}
			}
		}
		return errors.New(msg)
	}
	return err
}
