package main

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"
)

// FuzzAnalyze runs `shardsim analyze` on a CSV log whose lines the fuzzer writes (hostile
// keys: escape sequences, NUL, pipes, tags, formulas, invalid UTF-8), as text and as
// Markdown, with a candidate design on the key. The command must end with status 0 or 2,
// never panic, and write no raw control character, no raw HTML tag and no table row that
// a key split (the checks of TestHostileInjection). Its seeds are testdata/hostile/keys.csv's
// first lines; `make fuzz` runs it.
func FuzzAnalyze(f *testing.F) {
	b, err := os.ReadFile(hostile + "keys.csv")
	if err != nil {
		f.Fatal(err)
	}
	lines := bytes.Split(b, []byte("\n"))
	for i := 1; i+4 < len(lines) && i < 200; i += 5 {
		f.Add(bytes.Join(lines[i:i+5], []byte("\n")), uint8(i))
	}
	f.Add([]byte("1,read,\x1b]0;x\x07\n2,write,a|b\n3,read,<script>x</script>\n"), uint8(1))
	f.Add([]byte("1,read,\xff\xfe\x9b\n2,write,=1+1\n"), uint8(0))
	dir := f.TempDir()
	f.Fuzz(func(t *testing.T, body []byte, sel uint8) {
		p := filepath.Join(dir, "log.csv")
		if err := os.WriteFile(p, append([]byte("ts,op,key\n"), body...), 0o644); err != nil {
			t.Fatal(err)
		}
		format := []string{"text", "markdown"}[sel%2]
		args := []string{"analyze", p, "-f", format, "--top", "20"}
		if sel&2 != 0 {
			args = append(args, "--key", "key", "--shards", "4")
		}
		code, stdout, stderr := call(t, args...)
		if code != 0 && code != 2 {
			t.Fatalf("exit %d: %s", code, stderr)
		}
		checkTerminal(t, "analyze", stdout, stderr)
		if format == "markdown" && code == 0 {
			checkMarkdown(t, "analyze -f markdown", []byte(stdout))
		}
	})
}
