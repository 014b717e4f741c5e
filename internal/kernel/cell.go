package kernel

import (
	"encoding/base64"
	"fmt"
	"strings"
)

// A cell's result as it comes: the items a run streams, gathered into one Cell.

// Item is one piece of a cell's output, in order.
type Item struct {
	Kind string // "stdout", "stderr", "text" (a value or display), "markdown", "image"
	Text string
	PNG  []byte // Kind "image"
}

// Cell is what a cell gave.
type Cell struct {
	Items []Item
	// Result is the cell's last expression (its index in Items, -1: none).
	Result int
	// Error is the cell's exception ("" for none): its name, message and the cell's
	// own frames.
	Error string
	// Status: "ok", "error", "interrupted" (the cell caught no interrupt and ended),
	// "killed" (it did not end after the interrupt: the kernel was killed, its state is
	// lost), "died" (the kernel ended by itself: killed from outside, a cell that
	// closed the protocol, out of memory).
	Status string
	// Cut counts the characters of output not kept; ImagesCut the images.
	Cut, ImagesCut int
	// Interrupted: why the cell was interrupted ("" when it was not).
	Interrupted string

	headLen int
	tail    strings.Builder
}

func (c *Cell) stream(name, text string) {
	// Text is kept whole up to keepText, then only its tail (counted), as one item.
	if c.headLen < keepText {
		n := min(len(text), keepText-c.headLen)
		c.headLen += n
		c.add(name, text[:n])
		text = text[n:]
	}
	if text == "" {
		return
	}
	c.tail.WriteString(text)
	if c.tail.Len() > 2*keepText {
		t := c.tail.String()
		keep := t[len(t)-keepText:]
		c.Cut += len(t) - len(keep)
		c.tail.Reset()
		c.tail.WriteString(keep)
	}
}

func (c *Cell) add(kind, text string) {
	if n := len(c.Items); n > 0 && c.Items[n-1].Kind == kind && (kind == "stdout" || kind == "stderr") {
		c.Items[n-1].Text += text
		return
	}
	c.Items = append(c.Items, Item{Kind: kind, Text: text})
}

// finish moves the kept tail of the output into the items.
func (c *Cell) finish() {
	if c.tail.Len() == 0 {
		return
	}
	t := c.tail.String()
	if c.Cut > 0 {
		c.Items = append(c.Items, Item{Kind: "stdout", Text: fmt.Sprintf("\n[… %d characters of output cut …]\n", c.Cut)})
	}
	c.add("stdout", t)
	c.tail.Reset()
}

func (c *Cell) bundle(d map[string]any, result bool) {
	c.finish() // the text before it comes before it
	if result {
		c.Result = len(c.Items)
	}
	if s, ok := d["image/png"].(string); ok {
		png, err := base64.StdEncoding.DecodeString(s)
		if err != nil {
			c.Items = append(c.Items, Item{Kind: "text", Text: "[an image that could not be read]"})
			return
		}
		n := 0
		for _, it := range c.Items {
			if it.Kind == "image" {
				n++
			}
		}
		if n >= maxImages {
			c.ImagesCut++
			return
		}
		c.Items = append(c.Items, Item{Kind: "image", PNG: png})
		return
	}
	if s, ok := d["text/markdown"].(string); ok {
		c.Items = append(c.Items, Item{Kind: "markdown", Text: s})
		return
	}
	if s, ok := d["text/plain"].(string); ok {
		c.Items = append(c.Items, Item{Kind: "text", Text: s})
	}
}
