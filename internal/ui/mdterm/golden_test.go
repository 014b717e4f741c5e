package mdterm

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"testing"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata")

func TestGolden(t *testing.T) {
	for _, name := range []string{"sample", "answer"} {
		src, err := os.ReadFile(filepath.Join("testdata", name+".md"))
		if err != nil {
			t.Fatal(err)
		}
		for _, width := range []int{40, 80, 120} {
			for _, color := range []bool{false, true} {
				mode := "plain"
				if color {
					mode = "color"
				}
				file := filepath.Join("testdata", fmt.Sprintf("%s.%d.%s.golden", name, width, mode))
				t.Run(filepath.Base(file), func(t *testing.T) {
					got := Render(string(src), Options{Width: width, Color: color}) + "\n"
					if *update {
						if err := os.WriteFile(file, []byte(got), 0o644); err != nil {
							t.Fatal(err)
						}
						return
					}
					want, err := os.ReadFile(file)
					if err != nil {
						t.Fatalf("%v (run the test with -update to make it)", err)
					}
					if got != string(want) {
						t.Errorf("output differs from %s (run with -update to accept):\n%s", file, got)
					}
					checkLines(t, got[:len(got)-1], width, color)
				})
			}
		}
	}
}
