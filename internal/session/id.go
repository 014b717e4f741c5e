package session

import (
	"crypto/rand"
	"encoding/binary"
	"time"
)

// idAlphabet is Crockford's base32 in lower case: no i, l, o, u, easy to read aloud
// and to type, and in ASCII order, so ids sort as their times do.
const idAlphabet = "0123456789abcdefghjkmnpqrstvwxyz"

const (
	idTimeChars = 9  // 45 bits of milliseconds: good until the year 3084
	idRandChars = 10 // 50 bits of randomness
	idLen       = idTimeChars + idRandChars
)

// newID returns a fresh session id: the creation time in milliseconds then random
// characters, so ids sort by creation time and never collide in practice.
func newID(now time.Time) string {
	var b [idLen]byte
	ms := uint64(now.UnixMilli())
	for i := idTimeChars - 1; i >= 0; i-- {
		b[i] = idAlphabet[ms&31]
		ms >>= 5
	}
	var r [8]byte
	rand.Read(r[:]) // never fails (crypto/rand panics rather than returning short)
	bits := binary.LittleEndian.Uint64(r[:])
	for i := idTimeChars; i < idLen; i++ {
		b[i] = idAlphabet[bits&31]
		bits >>= 5
	}
	return string(b[:])
}

// validPrefix reports whether s can be the start of an id.
func validPrefix(s string) bool {
	if s == "" || len(s) > idLen {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !('0' <= c && c <= '9' || 'a' <= c && c <= 'z') {
			return false
		}
	}
	return true
}
