package web

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
)

// exaRequest is the body of POST /search in Exa's API.
type exaRequest struct {
	Query      string      `json:"query"`
	NumResults int         `json:"numResults"`
	Type       string      `json:"type"`
	Contents   exaContents `json:"contents"`
}

type exaContents struct {
	Text *exaText `json:"text,omitempty"`
}

type exaText struct {
	MaxCharacters int `json:"maxCharacters"`
}

// exaResponse is Exa's answer to a search.
type exaResponse struct {
	RequestID string      `json:"requestId"`
	Results   []exaResult `json:"results"`
}

type exaResult struct {
	ID            string   `json:"id"`
	Title         string   `json:"title"`
	URL           string   `json:"url"`
	PublishedDate string   `json:"publishedDate"`
	Author        string   `json:"author"`
	Text          string   `json:"text"`
	Highlights    []string `json:"highlights"`
	Score         *float64 `json:"score"`
}

// exaStatusFailure is the sentence for an answer of Exa other than 200.
func exaStatusFailure(resp *http.Response, b *body) string {
	status := "HTTP " + resp.Status
	if detail := exaError(b); detail != "" {
		status += ": " + strings.TrimSuffix(detail, ".")
	}
	switch code := resp.StatusCode; {
	case code == http.StatusUnauthorized || code == http.StatusForbidden:
		return fmt.Sprintf("web_search: Exa refused the API key (%s); check EXA_API_KEY.", status)
	case code == http.StatusTooManyRequests:
		wait := ""
		if ra := resp.Header.Get("Retry-After"); ra != "" {
			wait = " (Retry-After: " + ra + ")"
		}
		return fmt.Sprintf("web_search: Exa is limiting the rate of searches (%s); wait a little before searching again%s.", status, wait)
	case code >= 500:
		return fmt.Sprintf("web_search: Exa failed (%s); try again later.", status)
	case code == http.StatusBadRequest:
		return fmt.Sprintf("web_search: Exa rejected the search (%s); rephrase the query or change its type.", status)
	default:
		return fmt.Sprintf("web_search: Exa answered %s.", status)
	}
}

// exaError extracts the message of an error answer: its "error" or "message" field,
// or else the first line of the body when it is short text.
func exaError(b *body) string {
	var e struct {
		Error   any    `json:"error"`
		Message string `json:"message"`
	}
	if json.Unmarshal(b.data, &e) == nil {
		switch v := e.Error.(type) {
		case string:
			if v != "" {
				return oneLine(v)
			}
		case map[string]any:
			if m, ok := v["message"].(string); ok && m != "" {
				return oneLine(m)
			}
		}
		if e.Message != "" {
			return oneLine(e.Message)
		}
	}
	if b.kind == kindBinary {
		return ""
	}
	line, _, _ := strings.Cut(strings.TrimSpace(b.text), "\n")
	line = oneLine(line)
	if len(line) > 200 || strings.HasPrefix(line, "<") {
		return ""
	}
	return line
}
