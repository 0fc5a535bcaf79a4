package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
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

// TestDurationShortensWarmup: --duration shorter than a built-in's warmup shortens the
// warmup in proportion, with a note, instead of refusing the run (8 of 9 built-ins were
// refused at --duration 20s).
func TestDurationShortensWarmup(t *testing.T) {
	code, out, stderr := call(t, "explain", "black-friday", "--duration", "3m", "-f", "json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	// 5m of a 3h run, scaled to a 3m run: 5s.
	if want := "note: --duration 3m is not longer than the scenario's warmup 5m; the warmup is shortened in proportion, to 5s"; !strings.Contains(stderr, want) {
		t.Errorf("stderr %q, want %q", stderr, want)
	}
	if !strings.Contains(out, `"variants"`) && !strings.Contains(out, `"Variants"`) {
		t.Errorf("no explanation printed: %.200s", out)
	}
	// A warmup that fits is left alone, and a warmup set on the command line wins.
	for _, args := range [][]string{{"--duration", "2h"}, {"--duration", "3m", "--set", `warmup="10s"`}} {
		_, _, stderr := call(t, append([]string{"explain", "black-friday"}, args...)...)
		if strings.Contains(stderr, "shortened") {
			t.Errorf("%v: %s", args, stderr)
		}
	}
}

// TestBadOutputRefusedFirst: an -o that cannot receive files is refused at once, before
// any simulation, with exit status 2 (it was found after 31 s of simulation).
func TestBadOutputRefusedFirst(t *testing.T) {
	file := filepath.Join(t.TempDir(), "file")
	if err := os.WriteFile(file, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct{ out, want string }{
		{file, "is a file, not a directory"},
		{filepath.Join(file, "sub"), file + " is a file, so the directory cannot be made"},
	} {
		start := time.Now()
		code, _, stderr := call(t, "run", "black-friday", "-q", "--no-charts", "-o", tc.out)
		if code != 2 || !strings.Contains(stderr, "-o "+tc.out+": "+tc.want) {
			t.Errorf("-o %s: exit %d, %q", tc.out, code, stderr)
		}
		if d := time.Since(start); d > 5*time.Second {
			t.Errorf("-o %s: refused after %v; it must be refused before simulating", tc.out, d)
		}
	}
}
