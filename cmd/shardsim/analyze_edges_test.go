package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// edgesLog writes a csv log of n writes, one every 10 ms, write i keyed key(i), into a
// test's directory.
func edgesLog(t *testing.T, name string, n int, key func(int) string) string {
	t.Helper()
	var b strings.Builder
	b.WriteString("ts,op,key\n")
	for i := range n {
		fmt.Fprintf(&b, "%.2f,set,%s\n", float64(i)/100, key(i))
	}
	path := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// TestAnalyzeSaltUnderRedisCluster: a salt under redis_cluster is refused, naming the
// flag (exit 2), as a replay of the log refuses it: the key's text decides its slot, and
// the figures were those of the key without its salt (mean fan-out 1).
func TestAnalyzeSaltUnderRedisCluster(t *testing.T) {
	log := edgesLog(t, "users.csv", 2000, func(i int) string { return fmt.Sprintf("user:%d", i%300) })
	code, out, errs := call(t, "analyze", log, "--key", "key", "--scheme", "redis_cluster", "--salt", "4")
	if code != 2 || !strings.Contains(errs, "--salt 4: not with --scheme redis_cluster") || out != "" {
		t.Errorf("exit %d, stderr %q, stdout %d bytes; want 2, the flag named, nothing printed", code, errs, len(out))
	}
	if code, _, errs := call(t, "analyze", log, "--key", "key", "--scheme", "redis_cluster"); code != 0 {
		t.Errorf("without the salt: exit %d, %s", code, errs)
	}
}

// TestAnalyzeSchemeChoices: a mistyped --scheme lists the schemes analyze can route
// through, not directory, whose entries no flag gives; --scheme directory says where its
// entries come from.
func TestAnalyzeSchemeChoices(t *testing.T) {
	log := edgesLog(t, "users.csv", 200, func(i int) string { return fmt.Sprintf("user:%d", i%30) })
	code, _, errs := call(t, "analyze", log, "--key", "key", "--scheme", "ranged")
	if code != 2 || !strings.Contains(errs, `--scheme: must be one of "hash", "range", "redis_cluster" (got "ranged")`) || strings.Contains(errs, "directory") {
		t.Errorf("--scheme ranged: exit %d, %q; want 2 and the three schemes analyze takes", code, errs)
	}
	code, _, errs = call(t, "analyze", log, "--key", "key", "--scheme", "directory")
	if code != 2 || !strings.Contains(errs, "[[keyspace.directory]]") {
		t.Errorf("--scheme directory: exit %d, %q; want 2 and where a directory's entries come from", code, errs)
	}
}

// TestAnalyzeNamesTheCure: a UUIDv7 key (one a write, growing with time) is flagged
// monotonic, and analyze names the cure run's diagnosis names for it (monotonic_key) with
// the flags that try it; those flags are a design analyze takes.
func TestAnalyzeNamesTheCure(t *testing.T) {
	log := edgesLog(t, "uuidv7.csv", 2000, func(i int) string {
		ms := 1764230400000 + 10*i
		return fmt.Sprintf("%08x-%04x-7%03x-%04x-%012x", ms>>16, ms&0xffff, i*37%4096, 0x8000|i*7919%16384, i*104729)
	})
	code, out, errs := call(t, "analyze", log)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	const try = "--key key --scheme range --salt 4 --salt-mode hash --salt-field key"
	if !strings.Contains(out, "key grows with time: under a range scheme every new write lands on the last shard") || !strings.Contains(out, "lead the key with another field (a composite key) or a salt bucket") || !strings.Contains(out, try) {
		t.Fatalf("analyze names no cure for a monotonic key:\n%s", out)
	}
	if code, _, errs := call(t, append([]string{"analyze", log}, strings.Fields(try)...)...); code != 0 {
		t.Errorf("the flags it suggests: exit %d, %s", code, errs)
	}
}

// TestAnalyzeRepeatedColumn: a csv header naming a column twice is refused with exit
// status 2, naming the file and the column.
func TestAnalyzeRepeatedColumn(t *testing.T) {
	path := filepath.Join(t.TempDir(), "twice.csv")
	if err := os.WriteFile(path, []byte("ts,ts,op,key\n1,1,set,a\n2,2,set,b\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	code, _, errs := call(t, "analyze", path)
	if code != 2 || !strings.Contains(errs, "twice.csv") || !strings.Contains(errs, `column "ts" twice`) {
		t.Errorf("exit %d, %q; want 2, the file and the column named", code, errs)
	}
}
