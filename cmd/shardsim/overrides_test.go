package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// TestCommandLineWins checks docs/scenario.md's "Overrides from the command line" at the
// command line: a --set value replaces a variant's own (with a note on stderr, once per
// variant), and a problem in a command-line value is blamed on the flag, not on a line of the
// file.
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
	t.Parallel()
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

// TestOutputDirectoryConsistent: an output directory holds one command's results. A second
// command into it while the first writes is refused (the lock names the live process), a
// lock left by a process that is gone is taken over, and a rerun with fewer variants removes
// the charts of the variants it left out, which the marker listed.
func TestOutputDirectoryConsistent(t *testing.T) {
	t.Parallel()
	dir := filepath.Join(t.TempDir(), "out")
	run := func(extra ...string) (int, string) {
		code, _, stderr := call(t, append([]string{"run", "quickstart", "-q", "--duration", "10s", "--set", `warmup="1s"`, "-o", dir}, extra...)...)
		return code, stderr
	}
	if code, stderr := run(); code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	for _, f := range []string{"heat-1-zipf-user-id.png", "heat-2-uniform-key.png", "heat-3-12-nodes.png"} {
		if _, err := os.Stat(filepath.Join(dir, f)); err != nil {
			t.Fatalf("first run: %v", err)
		}
	}
	if code, stderr := run("--variant", "0"); code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	for f, want := range map[string]bool{"heat-1-zipf-user-id.png": true, "heat-2-uniform-key.png": false, "heat-3-12-nodes.png": false, "summary.json": true} {
		if _, err := os.Stat(filepath.Join(dir, f)); (err == nil) != want {
			t.Errorf("after a rerun of one variant, %s present = %v, want %v", f, err == nil, want)
		}
	}
	marker, _ := os.ReadFile(filepath.Join(dir, ".shardsim"))
	if !strings.HasPrefix(string(marker), "quickstart\n") || !strings.Contains(string(marker), "\nheat-1-zipf-user-id.png\n") || strings.Contains(string(marker), "heat-2") {
		t.Errorf("marker %q", marker)
	}

	// A lock file that nobody holds is stale, whatever process it names
	// (TestLockRecovers tests the live and the killed holder).
	lock := filepath.Join(dir, ".shardsim.lock")
	gone := exec.Command("true")
	if err := gone.Run(); err != nil {
		t.Skip("no `true` to make a finished process:", err)
	}
	os.WriteFile(lock, []byte(strconv.Itoa(gone.Process.Pid)+"\n"), 0o644)
	if code, stderr := run("--no-charts"); code != 0 { // the lock is the point here, not the charts
		t.Errorf("a lock left by a finished process: exit %d, %q", code, stderr)
	}
	if _, err := os.Stat(lock); err == nil {
		t.Error("the lock outlived the command")
	}
}
