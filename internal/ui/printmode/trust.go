package printmode

import (
	"context"
	"fmt"
	"strings"

	"github.com/gantry-dev/gantry/internal/face"
)

// TrustFolder implements face.Asker: the folder's commands, then y or n.
func (a *TerminalAsker) TrustFolder(ctx context.Context, req face.TrustRequest) (bool, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.start()
	fmt.Fprintf(a.out, "\n%s\n", strings.Join(req.Lines(), "\n"))
	for {
		fmt.Fprint(a.out, "  [y] trust the folder  [n] run none of them > ")
		s, err := a.readLine(ctx)
		if err != nil {
			return false, err
		}
		switch strings.ToLower(s) {
		case "y", "yes":
			return true, nil
		case "n", "no":
			return false, nil
		}
	}
}
