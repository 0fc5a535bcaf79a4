package trace_test

import (
	"bytes"
	"testing"
	"testing/fstest"

	"github.com/shardsim/shardsim/trace"
	"github.com/shardsim/shardsim/workload"
)

// BenchmarkSource measures records per second of a replay (Source.Next and the key fields
// the engine asks for, hashed or in text order) over 200,000 twitter lines from memory,
// half of them the replayed operation.
func BenchmarkSource(b *testing.B) {
	var buf bytes.Buffer
	g := trace.Synthetic{Format: trace.Twitter, Lines: 200_000, Rate: 50_000, Keys: 1_000_000, S: 0.99, Reads: 0.5, Seed: 1}
	if err := g.Write(&buf); err != nil {
		b.Fatal(err)
	}
	fsys := fstest.MapFS{"log.txt": {Data: buf.Bytes()}}
	opt := trace.Options{Format: trace.Twitter, Delimiter: ":", Names: []string{"ns", "kind", "id"}}
	for _, order := range []bool{false, true} {
		name := "order=false"
		if order {
			name = "order=true"
		}
		b.Run(name, func(b *testing.B) {
			b.ReportAllocs()
			r := newRand()
			records := 0
			for i := 0; i < b.N; i++ {
				src := trace.NewSource(fsys, "log.txt", opt, trace.Read, 1, 3, order)
				id, ns := src.Field(2, true), src.Field(0, false)
				for at := src.Next(r, 0); at != workload.Never; at = src.Next(r, at) {
					id.Next(r, at)
					ns.Next(r, at)
					records++
				}
				if err := src.Err(); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(records)/b.Elapsed().Seconds(), "records/s")
		})
	}
}
