// Command shardsim simulates a sharded database cluster under a workload and shows where
// load concentrates: per-shard heat, tail latency, and several key designs side by side.
package main

import (
	"fmt"
	"io"
	"os"

	"github.com/shardsim/shardsim/internal/escape"
)

func main() {
	code := Main(os.Args[1:], os.Stdout, os.Stderr)
	os.Exit(code)
}

// Main runs the command line and returns the exit status: 0 on success, 2 for a usage or
// scenario error, 1 for anything else.
//
// Everything a command writes to stdout and stderr passes through escape.Terminal: a name,
// a value or a log's key holds whatever its author typed, and its escape sequences are
// shown, never sent to the terminal (docs/architecture.md, "Untrusted text").
func Main(args []string, stdout, stderr io.Writer) int {
	tout, terr := escape.NewTerminalWriter(stdout), escape.NewTerminalWriter(stderr)
	defer tout.Close()
	defer terr.Close()
	stdout, stderr = tout, terr
	err := run(args, stdout, stderr)
	if err == nil {
		return 0
	}
	fmt.Fprintln(stderr, "shardsim:", err)
	return exitCode(err)
}
