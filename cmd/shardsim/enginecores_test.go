package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestEngineCores: the quickstart's three variants run on one core and split among three
// (--engine-cores, sim.RunOn) write the same files, byte for byte.
func TestEngineCores(t *testing.T) {
	t.Parallel()
	var dirs []string
	for _, cores := range []string{"1", "3"} {
		dir := t.TempDir()
		if code, _, stderr := call(t, "run", "quickstart", "--duration", "20s", "-j", "1", "--engine-cores", cores, "-q", "--no-charts", "-o", dir, "--force"); code != 0 {
			t.Fatalf("--engine-cores %s: exit %d: %s", cores, code, stderr)
		}
		dirs = append(dirs, dir)
	}
	for _, f := range []string{"summary.json", "streams.csv", "shards.csv", "nodes.csv", "report.md", "report.html"} {
		a, errA := os.ReadFile(filepath.Join(dirs[0], f))
		b, errB := os.ReadFile(filepath.Join(dirs[1], f))
		if errA != nil || errB != nil {
			t.Fatal(errA, errB)
		}
		if !bytes.Equal(a, b) {
			t.Errorf("%s differs between --engine-cores 1 and 3", f)
		}
	}
}

// TestEngineCoresFeedback: black-friday's payment callbacks time out and retry, feedback
// with zero lookahead between the nodes and the clients, so its runs stay on one core,
// and run says so on stderr; --engine-cores 0 is refused.
func TestEngineCoresFeedback(t *testing.T) {
	t.Parallel()
	code, _, stderr := call(t, "run", "black-friday", "--variant", "before", "--duration", "1m", "--set", `warmup="10s"`,
		"--engine-cores", "2", "--no-charts", "--no-html", "-o", t.TempDir(), "--force")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	if want := `ran on one core of 2: stream "payment_callback" has a client timeout, retries or a rate limit`; !strings.Contains(stderr, want) {
		t.Errorf("stderr lacks %q:\n%s", want, stderr)
	}
	if code, _, stderr := call(t, "run", "quickstart", "--engine-cores", "0"); code != 2 || !strings.Contains(stderr, "--engine-cores 0: want at least 1") {
		t.Errorf("--engine-cores 0: exit %d, stderr %q; want 2 and the flag named", code, stderr)
	}
}
