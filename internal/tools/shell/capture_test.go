package shell

import (
	"fmt"
	"strings"
	"testing"
)

func TestCaptureKeepsHeadAndTail(t *testing.T) {
	t.Parallel()
	c := newCapture(5, 4)
	for i := range 100 {
		fmt.Fprintf(c, "%d,", i) // 290 bytes in writes of 2 and 3
	}
	if got, want := c.String(), "0,1,2\n[… 281 bytes of output dropped here …]\n,99,"; got != want {
		t.Fatalf("got %q, want %q", got, want)
	}
	if len(c.tail) > 2*c.tailMax {
		t.Fatalf("tail grew to %d bytes", len(c.tail))
	}
	big := newCapture(3, 3)
	big.Write([]byte("abcdefghijklmnop"))
	if got := big.String(); got != "abc\n[… 10 bytes of output dropped here …]\nnop" {
		t.Fatalf("one big write: %q", got)
	}
	small := newCapture(3, 3)
	small.Write([]byte("abcdef"))
	if got := small.String(); got != "abcdef" {
		t.Fatalf("nothing dropped: %q", got)
	}
	cut := newCapture(2, 2)
	cut.Write([]byte("aé" + strings.Repeat("-", 10) + "éz"))
	if got := cut.String(); strings.ToValidUTF8(got, "") != got {
		t.Fatalf("invalid UTF-8 at a cut: %q", got)
	}
}
