//go:build linux

package contain

import (
	"context"
	"testing"
	"time"
)

// BenchmarkExec is the cost of one exec of /bin/true inside a command, without and
// with the supervisor (the judge allows everything): b.N execs per command.
func BenchmarkExec(b *testing.B) {
	for _, c := range []struct {
		name  string
		judge Judge
	}{
		{"plain", nil},
		{"supervised", func(Exec) Refusal { return Refusal{} }},
	} {
		b.Run(c.name, func(b *testing.B) {
			if c.judge != nil {
				if ok, why := Supervisor(); !ok {
					b.Skip(why)
				}
			}
			p := New(`i=0; while [ $i -lt "$N" ]; do /bin/true; i=$((i+1)); done`, Options{Env: []string{"N=" + itoa(b.N)}, Judge: c.judge})
			b.ResetTimer()
			if err := p.Start(); err != nil {
				b.Fatal(err)
			}
			p.Wait(context.Background(), 10*time.Minute, time.Second, nil)
		})
	}
}

func itoa(n int) string {
	s := ""
	for {
		s = string(rune('0'+n%10)) + s
		if n /= 10; n == 0 {
			return s
		}
	}
}

// BenchmarkMasks is the cost, at each sandboxed command's start, of finding what a
// program denied whole is (its files and their other names) and a read-denied path.
func BenchmarkMasks(b *testing.B) {
	sb := &Sandbox{Unreadable: []string{"/etc/hostname"}, Hidden: []string{"mv"}}
	for b.Loop() {
		if len(masks(sb)) < 2 {
			b.Fatal("no masks")
		}
	}
}
