package llm

import (
	"errors"
	"testing"
)

// The scan tells content from keep-alives and finds a malformed event at the same
// byte however the stream is cut into reads, and keeps back the line that would
// end the bad event.
func TestSSEScanAnyChunking(t *testing.T) {
	const stream = "event: message_start\r\ndata: {\"type\":\"message_start\"}\r\n\r\n" +
		": keep-alive\n\n" +
		"event: ping\ndata: {\"type\": \"ping\"}\n\n" +
		"data: {\"type\":\"keepalive\"}\n\n" +
		"data: [DONE]\n\n" +
		"event: content_block_delta\ndata: {\"type\":\"content_block_delta\",\"index\":0,\"delta\":{\"type\":\"text_delta\",\"text\":\"a\"\n\n" +
		"data: {\"type\":\"never read\"}\n\n"
	badAt := int64(len("event: message_start\r\ndata: {\"type\":\"message_start\"}\r\n\r\n" + ": keep-alive\n\n" +
		"event: ping\ndata: {\"type\": \"ping\"}\n\n" + "data: {\"type\":\"keepalive\"}\n\n" + "data: [DONE]\n\n" +
		"event: content_block_delta\ndata: "))
	bodyEnd := badAt + int64(len("{\"type\":\"content_block_delta\",\"index\":0,\"delta\":{\"type\":\"text_delta\",\"text\":\"a\"\n"))
	for size := 1; size <= len(stream); size++ {
		s := &sseScan{}
		var contents []int64 // the offsets at which content was seen
		var passed int64
		var err error
		for i := 0; i < len(stream) && err == nil; i += size {
			chunk := []byte(stream[i:min(i+size, len(stream))])
			var content bool
			var keep int
			content, keep, err = s.feed(chunk)
			if content {
				contents = append(contents, int64(i))
			}
			passed += int64(keep)
		}
		var me *MalformedEventError
		if !errors.As(err, &me) {
			t.Fatalf("size %d: err %v", size, err)
		}
		if want := badAt + int64(len("{\"type\":\"content_block_delta\",\"index\":0,\"delta\":{\"type\":\"text_delta\",\"text\":\"a\"")); me.Offset != want {
			t.Errorf("size %d: offset %d, want %d (%v)", size, me.Offset, want, me)
		}
		if passed != bodyEnd {
			t.Errorf("size %d: %d bytes passed on, want %d", size, passed, bodyEnd)
		}
		// Content twice: message_start and [DONE]; the comment, ping and keepalive are not.
		if len(contents) != 2 && size == 1 {
			t.Errorf("size 1: content at %v", contents)
		}
	}
}
