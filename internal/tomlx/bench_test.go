package tomlx

import (
	"fmt"
	"strings"
	"testing"
)

// BenchmarkIndexLines measures the line scanner (indexLines) on a scenario-like document
// of 2,000 streams, each a table header, dotted and quoted keys, strings of the four
// kinds, an inline table and an array of 20 numbers: about 420 KB.
func BenchmarkIndexLines(b *testing.B) {
	var sb strings.Builder
	sb.WriteString("name = \"bench\"\ndescription = \"\"\"a\nmulti-line \\\"text\\\"\"\"\"\n[cluster]\nnodes = 4 # a comment\n")
	for i := range 2000 {
		fmt.Fprintf(&sb, "\n[[streams]]\nname = \"s%d\"\n'quoted.key' = 'literal'\nrate.max = %d\nkey = { scheme = \"hash\", shards = [1, 2] }\n", i, i)
		sb.WriteString("schedule = [")
		for j := range 20 {
			fmt.Fprintf(&sb, "%d, ", j)
		}
		sb.WriteString("]\nnote = '''raw\ntext'''\n")
	}
	src := sb.String()
	b.SetBytes(int64(len(src)))
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		lines, _ := indexLines(src)
		if len(lines) == 0 {
			b.Fatal("no lines")
		}
	}
}
