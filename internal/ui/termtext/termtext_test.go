package termtext

import (
	"testing"
	"time"
)

func TestWhen(t *testing.T) {
	now := time.Date(2026, 12, 1, 15, 30, 0, 0, time.Local)
	for _, c := range []struct {
		t    time.Time
		want string
	}{
		{time.Time{}, ""},
		{time.Date(2026, 12, 1, 9, 5, 0, 0, time.Local), "09:05"},
		{time.Date(2026, 11, 30, 23, 59, 0, 0, time.Local), "Nov 30 23:59"},
		{time.Date(2025, 12, 1, 9, 5, 0, 0, time.Local), "2025-12-01 09:05"},
	} {
		if got := When(c.t, now); got != c.want {
			t.Errorf("When(%v) = %q, want %q", c.t, got, c.want)
		}
	}
}
