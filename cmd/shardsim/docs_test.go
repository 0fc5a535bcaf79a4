package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/shardsim/shardsim/internal/docmark"
)

// A console block in the docs shows a command and what it prints:
//
//	```console
//	$ shardsim capacity orders --slo 'create_order:p99<50ms' --vary cluster.nodes=2,3,4
//	...its standard output...
//	```
//
// TestDocs runs every such command (in a scratch directory, so built-in scenarios only) and
// requires its exit status 0 and its standard output, byte for byte, to be the block's.
// `make docs` (go test ./cmd/shardsim -run TestDocs -update) rewrites the blocks from
// fresh runs; figures in the docs' tables are never typed by hand.
func TestDocs(t *testing.T) {
	files, _ := filepath.Glob("../../docs/*.md")
	files = append(files, "../../README.md")
	var abs []string
	for _, f := range files {
		a, err := filepath.Abs(f)
		if err != nil {
			t.Fatal(err)
		}
		abs = append(abs, a)
	}
	t.Chdir(t.TempDir())
	blocks := 0
	for _, f := range abs {
		src, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		out, n, err := runConsoleBlocks(t, filepath.Base(f), string(src), testing.Short())
		if err != nil {
			t.Error(err)
			continue
		}
		blocks += n
		if out == string(src) {
			continue
		}
		if *update || docmark.Updating() {
			if err := os.WriteFile(f, []byte(out), 0o644); err != nil {
				t.Fatal(err)
			}
			continue
		}
		t.Errorf("%s: a console block's output differs from the command's (make docs rewrites them; read the diff)", f)
	}
	if blocks == 0 {
		t.Error("no console block found in the docs")
	}
	if testing.Short() {
		return // the charts and the salt sweep's answer come from the blocks -short left out
	}
	// The charts the console blocks drew, where the docs show them.
	docmark.Apply(t, &docmark.Parts{Owner: "docs", SrcRoot: ".", Update: *update}, abs...)
	// docs/sweeps.md's salt sweep is the migration question; its rows are checked here
	// rather than run twice.
	saltBucketsAnswer(t, "out/salt-buckets-sweep/sweep.json")
}

// saltBucketsAnswer checks the salt-buckets sweep of docs/sweeps.md (salt 1 to 256, seeds
// 5, 6 and 7, about 1.8 million writes per run): write p99 falls and the last-minute
// query's partitions rise one per bucket (a few more where the minute straddles a split);
// one bucket runs away; two buckets meet nothing in any seed (the one seed whose ingest
// p99 stays under 20 ms runs its busiest node past the 85% ceiling, the other two run
// away); four buckets meet the latency with a node past the ceiling, so eight is the
// smallest count that every seed meets, with the interval's upper end under 20 ms, and
// the CHOICE (sweep.json's choice) is 8; 8 and 16 are under 5 ms; at 256 the query's
// fan-out costs the writes.
func saltBucketsAnswer(t *testing.T, path string) {
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("the docs' salt-buckets sweep: %v", err)
	}
	type est struct{ Mean, Hi95 *float64 }
	var sw struct {
		Choice []struct {
			Value *string
		}
		Rows []struct {
			Values  map[string]string
			Split   bool
			SLO     struct{ Passes int }
			Streams []struct {
				P99        est `json:"p99_ms"`
				Partitions est
			}
		}
	}
	if err := json.Unmarshal(b, &sw); err != nil || len(sw.Rows) != 9 {
		t.Fatalf("%s: %v, %d rows, want 9", path, err, len(sw.Rows))
	}
	ingest := func(i int) float64 { return *sw.Rows[i].Streams[0].P99.Mean }
	smallest := ""
	for _, r := range sw.Rows {
		n, _ := strconv.ParseFloat(r.Values["keyspace.salt"], 64)
		parts := *r.Streams[1].Partitions.Mean
		if parts < math.Min(n, 32) || parts > 1.1*n+1 {
			t.Errorf("salt %v: the query visits %.2f partitions, want about %v", n, parts, n)
		}
		if smallest == "" && r.SLO.Passes == 3 && *r.Streams[0].P99.Hi95 < 20 {
			smallest = r.Values["keyspace.salt"]
		}
	}
	if ingest(0) < 1000 || sw.Rows[0].SLO.Passes != 0 {
		t.Errorf("one bucket: ingest p99 %.1f ms, %d seeds passing; want above 1 s and none", ingest(0), sw.Rows[0].SLO.Passes)
	}
	if r := sw.Rows[1]; r.SLO.Passes != 0 {
		t.Errorf("two buckets: %d seeds passing, want none (under the ceiling)", r.SLO.Passes)
	}
	if smallest != "8" {
		t.Errorf("the smallest bucket count every seed meets ingest p99 < 20 ms with under the ceiling is %q, want 8", smallest)
	}
	if len(sw.Choice) != 1 || sw.Choice[0].Value == nil || *sw.Choice[0].Value != smallest {
		t.Errorf("sweep.json's choice %v, want %s", sw.Choice, smallest)
	}
	if ingest(3) > 5 || ingest(4) > 5 {
		t.Errorf("8 and 16 buckets: ingest p99 %.2f and %.2f ms, want under 5 ms", ingest(3), ingest(4))
	}
	if ingest(8) <= ingest(4) {
		t.Errorf("256 buckets: ingest p99 %.2f ms is not above 16 buckets' %.2f ms; the query's fan-out should cost the writes", ingest(8), ingest(4))
	}
}

// longDocCommands are the docs' commands that run many simulations each (capacity searches
// and sweeps: 4 to 27 runs, most of TestDocs' time). In -short mode (make test) their blocks
// are kept as written; make test-long runs them.
var longDocCommands = map[string]bool{"capacity": true, "sweep": true}

// runConsoleBlocks runs the console blocks of a Markdown document and returns it with
// each block's output replaced by the command's, and the number of blocks run. With short,
// a block of one of longDocCommands is left as it is.
func runConsoleBlocks(t *testing.T, name, doc string, short bool) (string, int, error) {
	lines := strings.SplitAfter(doc, "\n")
	var b strings.Builder
	n := 0
	for i := 0; i < len(lines); i++ {
		b.WriteString(lines[i])
		if strings.TrimSpace(lines[i]) != "```console" {
			continue
		}
		// The command: "$ shardsim ..." with backslash continuations.
		var cmd strings.Builder
		j := i + 1
		for ; j < len(lines); j++ {
			b.WriteString(lines[j])
			l := strings.TrimRight(lines[j], "\n")
			if c, ok := strings.CutSuffix(l, `\`); ok {
				cmd.WriteString(c)
				continue
			}
			cmd.WriteString(l)
			break
		}
		end := j + 1
		for end < len(lines) && strings.TrimSpace(lines[end]) != "```" {
			end++
		}
		if end == len(lines) {
			return "", n, fmt.Errorf("%s:%d: console block not closed", name, i+1)
		}
		line, ok := strings.CutPrefix(cmd.String(), "$ shardsim ")
		if !ok {
			return "", n, fmt.Errorf("%s:%d: a console block starts with \"$ shardsim \"", name, i+2)
		}
		args, err := splitShell(line)
		if err != nil {
			return "", n, fmt.Errorf("%s:%d: %v", name, i+2, err)
		}
		if short && len(args) > 0 && longDocCommands[args[0]] {
			t.Logf("%s:%d: shardsim %s: left to make test-long (-short)", name, i+2, line)
			for _, l := range lines[j+1 : end] {
				b.WriteString(l)
			}
			i = end - 1
			continue
		}
		var stdout, stderr bytes.Buffer
		if code := Main(args, &stdout, &stderr); code != 0 {
			return "", n, fmt.Errorf("%s:%d: shardsim %s: exit %d: %s", name, i+2, line, code, stderr.String())
		}
		t.Logf("%s:%d: shardsim %s", name, i+2, line)
		b.WriteString(stdout.String())
		if stdout.Len() > 0 && !strings.HasSuffix(stdout.String(), "\n") {
			b.WriteString("\n")
		}
		i = end - 1
		n++
	}
	return b.String(), n, nil
}

// splitShell splits a command line as a POSIX shell would for the docs' needs: words
// separated by blanks, 'single' and "double" quotes (no escapes inside single quotes;
// \" and \\ inside double quotes).
func splitShell(s string) ([]string, error) {
	var args []string
	var cur strings.Builder
	in, quote := false, rune(0)
	rs := []rune(s)
	for i := 0; i < len(rs); i++ {
		r := rs[i]
		switch {
		case quote == '\'':
			if r == '\'' {
				quote = 0
			} else {
				cur.WriteRune(r)
			}
		case quote == '"':
			switch {
			case r == '"':
				quote = 0
			case r == '\\' && i+1 < len(rs) && (rs[i+1] == '"' || rs[i+1] == '\\'):
				i++
				cur.WriteRune(rs[i])
			default:
				cur.WriteRune(r)
			}
		case r == '\'' || r == '"':
			quote, in = r, true
		case r == ' ' || r == '\t':
			if in {
				args = append(args, cur.String())
				cur.Reset()
				in = false
			}
		default:
			cur.WriteRune(r)
			in = true
		}
	}
	if quote != 0 {
		return nil, fmt.Errorf("unclosed %c quote", quote)
	}
	if in {
		args = append(args, cur.String())
	}
	return args, nil
}

func TestSplitShell(t *testing.T) {
	got, err := splitShell(`capacity orders --slo 'a:p99<50ms' --set "x=\"y z\"" -r 3`)
	want := []string{"capacity", "orders", "--slo", "a:p99<50ms", "--set", `x="y z"`, "-r", "3"}
	if err != nil || fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("got %q, %v; want %q", got, err, want)
	}
	if _, err := splitShell(`a 'b`); err == nil {
		t.Error("an unclosed quote was accepted")
	}
}
