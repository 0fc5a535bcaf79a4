package escape

import (
	"bytes"
	"encoding/csv"
	"strings"
	"testing"
)

func TestTerminal(t *testing.T) {
	cases := map[string]string{
		"plain text\tand\nlines": "plain text\tand\nlines",
		"\x1b]0;pwned\x07":       `\u001b]0;pwned\u0007`,
		"a\x00b\rc\x7f":          `a\u0000b\u000dc\u007f`,
		"\u009b31m":              `\u009b31m`,
		"abc\u202edcba":          `abc\u202edcba`,
		"\xff\xfe":               `\xff\xfe`,
		"naïve café — 東京":        "naïve café — 東京",
	}
	for in, want := range cases {
		if got := Terminal(in); got != want {
			t.Errorf("Terminal(%q) = %q, want %q", in, got, want)
		}
	}
	if got := Line("a\tb\nc"); got != `a\tb\nc` {
		t.Errorf("Line = %q", got)
	}
}

func TestMarkdown(t *testing.T) {
	cases := []struct{ in, text, cell string }{
		{"user_id", "user_id", "user_id"},
		{"<script>alert(1)</script>", "&lt;script&gt;alert(1)&lt;/script&gt;", "&lt;script&gt;alert(1)&lt;/script&gt;"},
		{"a|b", "a|b", `a\|b`},
		{"`code` *em* _em_", "\\`code\\` \\*em\\* \\_em\\_", "\\`code\\` \\*em\\* \\_em\\_"},
		{"[x](javascript:alert(1))", `\[x\](javascript:alert(1))`, `\[x\](javascript:alert(1))`},
		{"- item", `\- item`, "- item"},
		{"1. first", `1\. first`, "1. first"},
		{"43.2%", "43.2%", "43.2%"},
		{"# title\nnext", `\# title\\nnext`, `# title\\nnext`},
		{"shard #3", "shard #3", "shard #3"},
		{"-3.5", "-3.5", "-3.5"},
		{"===", `\===`, "==="},
		{"~requests", "~requests", "~requests"},
		{"~~struck~~", `\~\~struck\~\~`, `\~\~struck\~\~`},
		{"\x1b[2J", `\\u001b\[2J`, `\\u001b\[2J`},
	}
	for _, c := range cases {
		if got := MarkdownText(c.in); got != c.text {
			t.Errorf("MarkdownText(%q) = %q, want %q", c.in, got, c.text)
		}
		if got := MarkdownCell(c.in); got != c.cell {
			t.Errorf("MarkdownCell(%q) = %q, want %q", c.in, got, c.cell)
		}
	}
}

func TestCSVCell(t *testing.T) {
	cases := map[string]string{
		"=HYPERLINK(\"http://x\",\"y\")": `'=HYPERLINK("http://x","y")`,
		"+cmd|' /C calc'!A0":             `'+cmd|' /C calc'!A0`,
		"@SUM(A1)":                       "'@SUM(A1)",
		"-2+3":                           "'-2+3",
		"\tx":                            `'\tx`,
		"\r=1":                           `'\u000d=1`,
		"-3.5":                           "-3.5",
		"+2":                             "+2",
		"1e-9":                           "1e-9",
		"08:00:00":                       "08:00:00",
		"hash_user":                      "hash_user",
		"":                               "",
		"a\x1bb":                         `a\u001bb`,
	}
	for in, want := range cases {
		if got := CSVCell(in); got != want {
			t.Errorf("CSVCell(%q) = %q, want %q", in, got, want)
		}
	}
	var buf bytes.Buffer
	w := NewCSVWriter(&buf)
	w.Write([]string{"=1+1", `a,"b"`, "-1"})
	w.Flush()
	rec, err := csv.NewReader(&buf).Read()
	if err != nil || strings.Join(rec, "|") != `'=1+1|a,"b"|-1` {
		t.Errorf("read back %q, %v", rec, err)
	}
}

// TestTerminalWriter checks that a character split between writes is written whole, and
// an escape split the same way is still escaped.
func TestTerminalWriter(t *testing.T) {
	var buf bytes.Buffer
	w := NewTerminalWriter(&buf)
	in := "é\u202e\x1bx"
	for i := 0; i < len(in); i++ {
		w.Write([]byte{in[i]})
	}
	w.Write([]byte{0xe2})
	w.Close()
	if got, want := buf.String(), `é\u202e\u001bx\xe2`; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
}
