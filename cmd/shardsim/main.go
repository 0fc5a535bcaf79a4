// Command shardsim simulates a sharded database cluster under a workload and shows where
// load concentrates: per-shard heat, tail latency, and several key designs side by side.
package main

import (
	"fmt"
	"io"
	"os"
)

func main() {
	code := Main(os.Args[1:], os.Stdout, os.Stderr)
	os.Exit(code)
}

// Main runs the command line and returns the exit status: 0 on success, 2 for a usage or
// scenario error, 1 for anything else.
func Main(args []string, stdout, stderr io.Writer) int {
	err := run(args, stdout, stderr)
	if err == nil {
		return 0
	}
	fmt.Fprintln(stderr, "shardsim:", err)
	return exitCode(err)
}
