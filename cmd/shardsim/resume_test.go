package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// resumeArgs is a small capacity search: M/M/1 for 20 s, two replications.
func resumeArgs(dir string, extra ...string) []string {
	return append([]string{"capacity", "../../testdata/queueing/mm1.toml", "--slo", "requests:p99<46.05ms", "--duration", "20s",
		"-r", "2", "--no-charts", "-q", "-o", dir}, extra...)
}

// readDir reads every file under dir but the lock, by name.
func readDir(t *testing.T, dir string) map[string][]byte {
	t.Helper()
	files := map[string][]byte{}
	ents, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range ents {
		if e.Name() == lockFile {
			continue
		}
		b, err := os.ReadFile(filepath.Join(dir, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		files[e.Name()] = b
	}
	return files
}

// TestCapacityResume: a capacity search interrupted after k runs keeps them in its output
// directory, marked partial, and the same command with --resume ends with the same files,
// byte for byte, as the search run through, and the same stdout.
func TestCapacityResume(t *testing.T) {
	tmp := t.TempDir()
	whole, parts := filepath.Join(tmp, "whole"), filepath.Join(tmp, "parts")
	code, want, stderr := call(t, resumeArgs(whole)...)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	for _, k := range []int{3, 5} {
		testInterruptAfter = k
		var extra []string
		if k > 3 {
			extra = []string{"--resume"} // the second interruption, of a resumed search
		}
		code, _, stderr = call(t, resumeArgs(parts, extra...)...)
		testInterruptAfter = 0
		if code == 0 || !strings.Contains(stderr, "--resume continues") {
			t.Fatalf("interrupted after %d runs: exit %d, stderr %q", k, code, stderr)
		}
		got := readDir(t, parts)
		if _, ok := got[partialManifest]; !ok || bytes.Count(got[partialRuns], []byte("\n")) < k {
			t.Fatalf("after an interruption at %d runs the directory holds %d lines of runs and manifest %v", k, bytes.Count(got[partialRuns], []byte("\n")), ok)
		}
	}
	resumeMatches(t, resumeArgs(parts, "--resume"), want, whole, parts)
}

// resumeMatches runs args, the command that resumes into parts, and checks that it prints
// want and leaves parts with the same files, byte for byte, as the run through in whole.
func resumeMatches(t *testing.T, args []string, want, whole, parts string) {
	t.Helper()
	code, got, stderr := call(t, args...)
	if code != 0 {
		t.Fatalf("--resume: exit %d: %s", code, stderr)
	}
	if got != want {
		t.Errorf("--resume printed\n%s\nwant\n%s", got, want)
	}
	a, b := readDir(t, whole), readDir(t, parts)
	if len(a) != len(b) {
		t.Errorf("files %d after resuming, %d run through", len(b), len(a))
	}
	for name, x := range a {
		if !bytes.Equal(x, b[name]) {
			t.Errorf("%s differs after resuming", name)
		}
	}
}

// TestCapacityResumeRefused: --resume on a directory of another search (another scenario,
// other flags, another build), or holding none, exits 2 and changes nothing there.
func TestCapacityResumeRefused(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "out")
	testInterruptAfter = 2
	code, _, stderr := call(t, resumeArgs(dir)...)
	testInterruptAfter = 0
	if code == 0 {
		t.Fatalf("interrupted: exit 0: %s", stderr)
	}
	before := readDir(t, dir)
	// Another build: the same directory with the manifest's build changed.
	other := filepath.Join(t.TempDir(), "other")
	if err := os.MkdirAll(other, 0o755); err != nil {
		t.Fatal(err)
	}
	for name, b := range before {
		if name == partialManifest {
			b = bytes.Replace(b, []byte(`"fingerprint": "`), []byte(`"fingerprint": "x`), 1)
		}
		if err := os.WriteFile(filepath.Join(other, name), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for _, args := range [][]string{
		append(resumeArgs(dir, "--resume"), "--seed", "99"),
		{"capacity", "../../testdata/queueing/mmc.toml", "--slo", "requests:p99<46.05ms", "--duration", "20s", "-r", "2", "--no-charts", "-q", "-o", dir, "--resume"},
		resumeArgs(filepath.Join(t.TempDir(), "none"), "--resume"),
		resumeArgs(other, "--resume"),
	} {
		code, _, stderr := call(t, args...)
		if code != 2 || !strings.Contains(stderr, "--resume") {
			t.Errorf("%v: exit %d, stderr %q; want 2 naming --resume", args, code, stderr)
		}
		after := readDir(t, dir)
		for name, x := range before {
			if !bytes.Equal(x, after[name]) {
				t.Errorf("%v changed %s", args, name)
			}
		}
	}
}

// sweepResumeArgs is a small sweep: two points, two variants, two replications, and the
// placement check's pass under random placement (16 runs).
func sweepResumeArgs(dir string, extra ...string) []string {
	return append([]string{"sweep", "../../testdata/small.toml", "--vary", "cluster.nodes=2,3", "--slo", "put:p99<5ms", "--duration", "5s",
		"-r", "2", "--no-charts", "-q", "-o", dir}, extra...)
}

// TestSweepResume: a sweep interrupted after k runs keeps them in its output directory,
// marked partial, and the same command with --resume ends with the same files, byte for
// byte, as the sweep run through, and the same stdout; the second interruption falls in
// the placement check's pass.
func TestSweepResume(t *testing.T) {
	tmp := t.TempDir()
	whole, parts := filepath.Join(tmp, "whole"), filepath.Join(tmp, "parts")
	code, want, stderr := call(t, sweepResumeArgs(whole)...)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	lines := 0
	for _, k := range []int{5, 6} {
		testInterruptAfter = k
		var extra []string
		if lines > 0 {
			extra = []string{"--resume"} // the second interruption, of a resumed sweep
		}
		code, _, stderr = call(t, sweepResumeArgs(parts, extra...)...)
		testInterruptAfter = 0
		if code == 0 || !strings.Contains(stderr, "sweep interrupted") || !strings.Contains(stderr, "--resume continues") {
			t.Fatalf("interrupted after %d runs: exit %d, stderr %q", k, code, stderr)
		}
		got := readDir(t, parts)
		lines += k
		if _, ok := got[partialManifest]; !ok || bytes.Count(got[partialRuns], []byte("\n")) < lines {
			t.Fatalf("after an interruption at %d runs the directory holds %d lines of runs and manifest %v", k, bytes.Count(got[partialRuns], []byte("\n")), ok)
		}
	}
	if got := readDir(t, parts); !bytes.Contains(got[partialRuns], []byte(`"pass":1`)) {
		t.Fatalf("the second interruption kept no run of the placement check's pass")
	}
	resumeMatches(t, sweepResumeArgs(parts, "--resume"), want, whole, parts)
}

// TestSweepResumeRefused: --resume on a directory of another sweep (another scenario,
// other flags, another build), of a capacity search, or holding none, exits 2 and changes
// nothing there.
func TestSweepResumeRefused(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "out")
	testInterruptAfter = 2
	code, _, stderr := call(t, sweepResumeArgs(dir)...)
	testInterruptAfter = 0
	if code == 0 {
		t.Fatalf("interrupted: exit 0: %s", stderr)
	}
	before := readDir(t, dir)
	other := filepath.Join(t.TempDir(), "other") // another build: the manifest's build changed
	if err := os.MkdirAll(other, 0o755); err != nil {
		t.Fatal(err)
	}
	for name, b := range before {
		if name == partialManifest {
			b = bytes.Replace(b, []byte(`"fingerprint": "`), []byte(`"fingerprint": "x`), 1)
		}
		if err := os.WriteFile(filepath.Join(other, name), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for _, args := range [][]string{
		append(sweepResumeArgs(dir, "--resume"), "--seed", "99"),
		{"sweep", "../../testdata/small-rebalance.toml", "--vary", "cluster.nodes=2,3", "--slo", "put:p99<5ms", "--duration", "5s", "-r", "2", "--no-charts", "-q", "-o", dir, "--resume"},
		resumeArgs(dir, "--resume"), // a capacity search asking to resume a sweep's runs
		sweepResumeArgs(filepath.Join(t.TempDir(), "none"), "--resume"),
		sweepResumeArgs(other, "--resume"),
	} {
		code, _, stderr := call(t, args...)
		if code != 2 || !strings.Contains(stderr, "--resume") {
			t.Errorf("%v: exit %d, stderr %q; want 2 naming --resume", args, code, stderr)
		}
		after := readDir(t, dir)
		for name, x := range before {
			if !bytes.Equal(x, after[name]) {
				t.Errorf("%v changed %s", args, name)
			}
		}
	}
}
