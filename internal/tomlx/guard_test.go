package tomlx

import (
	"strings"
	"testing"
	"time"
)

// TestGuard feeds Parse the shapes that once crashed the process (nested inline tables,
// one long dotted key, deeply nested arrays) and checks that each is refused quickly with
// the file and line, while the same characters inside strings and comments pass.
func TestGuard(t *testing.T) {
	tests := []struct {
		name, src, want string
	}{
		{"nested inline tables (40 KB)", "name = \"x\"\nv = " + strings.Repeat("{a=", 10_000) + "1" + strings.Repeat("}", 10_000) + "\n", "f.toml:2: arrays and tables nest 33 deep"},
		{"one long dotted key (60 KB)", "\n" + strings.Repeat("a.", 30_000) + "b = 1\n", "f.toml:2: a dotted key of more than 32 parts"},
		{"nested arrays (6 MB)", "v = " + strings.Repeat("[", 3<<20) + strings.Repeat("]", 3<<20) + "\n", "f.toml:1: arrays and tables nest 33 deep"},
		{"too large", "# " + strings.Repeat("x", MaxFileBytes) + "\n", "the file has"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			start := time.Now()
			_, err := Parse("f.toml", []byte(tc.src))
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error %v, want it to contain %q", err, tc.want)
			}
			if d := time.Since(start); d > 2*time.Second {
				t.Errorf("took %v", d)
			}
		})
	}
	ok := "a = \"[[[[{{{{" + strings.Repeat(".", 100) + "\" # [[[[ " + strings.Repeat("a.", 100) + "\n" +
		"b = '''\n" + strings.Repeat("[", 100) + "\n'''\n" +
		"c = [[1, 2], [3, [4, {x = 5}]]]\n" +
		"d.e.f = 1.5\n"
	doc, err := Parse("ok.toml", []byte(ok))
	if err != nil {
		t.Fatalf("a valid document was refused: %v", err)
	}
	if _, ok := doc.Root["d"]; !ok {
		t.Error("d.e.f is missing")
	}
	if l := doc.Line("d.e.f"); l != 6 {
		t.Errorf("d.e.f on line %d, want 6 (strings' newlines counted)", l)
	}
}
