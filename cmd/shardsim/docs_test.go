package main

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
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
		out, n, err := runConsoleBlocks(t, filepath.Base(f), string(src))
		if err != nil {
			t.Error(err)
			continue
		}
		blocks += n
		copyCharts(t, f, out)
		if out == string(src) {
			continue
		}
		if *update {
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
}

// copyCharts handles the doc's "<!-- copy SRC DST -->" lines: SRC, a file the doc's
// commands wrote (relative to the scratch directory), must equal DST (relative to the
// doc), an image the doc shows; -update copies it.
func copyCharts(t *testing.T, doc, text string) {
	for _, l := range strings.Split(text, "\n") {
		rest, ok := strings.CutPrefix(strings.TrimSpace(l), "<!-- copy ")
		if !ok {
			continue
		}
		f := strings.Fields(strings.TrimSuffix(rest, "-->"))
		if len(f) != 2 {
			t.Errorf("%s: %q: want <!-- copy SRC DST -->", doc, l)
			continue
		}
		got, err := os.ReadFile(f[0])
		if err != nil {
			t.Errorf("%s: %v", doc, err)
			continue
		}
		dst := filepath.Join(filepath.Dir(doc), f[1])
		if *update {
			if err := os.WriteFile(dst, got, 0o644); err != nil {
				t.Fatal(err)
			}
			continue
		}
		if want, err := os.ReadFile(dst); err != nil || !bytes.Equal(got, want) {
			t.Errorf("%s: %s is not what the doc's commands draw now (make docs copies it)", doc, dst)
		}
	}
}

// runConsoleBlocks runs the console blocks of a Markdown document and returns it with
// each block's output replaced by the command's, and the number of blocks.
func runConsoleBlocks(t *testing.T, name, doc string) (string, int, error) {
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
