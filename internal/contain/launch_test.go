package contain

import "os/exec"

// Command prepares a contained `bash -c script` with no supervisor (see New).
func Command(script, dir string, env []string) *exec.Cmd {
	return New(script, Options{Dir: dir, Env: env}).Cmd
}
