package main

import (
	"strings"
	"testing"
)

// TestCommandLineWins checks SPEC 3.1 at the command line: a --set value replaces a
// variant's own (with a note on stderr, once per variant), and a problem in a
// command-line value is blamed on the flag, not on a line of the file.
func TestCommandLineWins(t *testing.T) {
	code, out, stderr := call(t, "explain", "iot-timeseries", "--set", "keyspace.salt=64", "--variant", "(salt 4, ts), range", "--variant", "(salt 8")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	for _, want := range []string{
		`note: --set keyspace.salt=64 replaces variant "(salt 4, ts), range"'s keyspace.salt = 4`,
		`note: --set keyspace.salt=64 replaces variant "(salt 8, ts), range"'s keyspace.salt = 8`,
	} {
		if strings.Count(stderr, want) != 1 {
			t.Errorf("stderr should hold %q once:\n%s", want, stderr)
		}
	}
	if got := strings.Count(out, "salt[64, random]"); got != 2 {
		t.Errorf("both variants should run with 64 buckets; %d of 2 do:\n%s", got, out)
	}

	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--seed", "-5"}, "--seed -5: want a number >= 0"},
		{[]string{"--duration", "0s"}, `--duration 0s: must be positive (got "0s")`},
		{[]string{"--set", "cluster.nodes=0"}, "--set cluster.nodes=0: must be at least 1 (got 0)"},
	} {
		code, _, stderr := call(t, append([]string{"explain", "quickstart"}, tc.args...)...)
		if code != 2 || !strings.Contains(stderr, tc.want) {
			t.Errorf("%v: exit %d, stderr %q; want exit 2 and %q", tc.args, code, stderr, tc.want)
		}
		if strings.Contains(stderr, ".toml:") || strings.Count(stderr, "\n") > 1 {
			t.Errorf("%v: the problem is the flag's, reported once, not a line of the file: %q", tc.args, stderr)
		}
	}
}
