// Package shell holds the tools that run shell commands for the model: bash (a new
// `bash -c` per call, in its own process group, stdout and stderr merged and bounded in
// memory) and, for commands started with run_in_background, task_output and task_kill,
// whose processes and output files a session's Tasks manager owns.
//
// Every process tree is stopped through its process group: on a timeout, on
// cancellation, when a command's main process exits (so a stray `sleep 100 &` neither
// hangs the call nor outlives it), on task_kill and on Tasks.Close.
package shell
