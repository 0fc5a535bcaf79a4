package trace

import (
	"bufio"
	"fmt"
	"io"
	"math/rand/v2"
	"strconv"

	"github.com/shardsim/shardsim/workload"
)

// Synthetic describes a generated log: the fixtures, the built-in replay demo and the
// tests that check Analyze and replay against known parameters use it.
type Synthetic struct {
	Format Format
	Lines  int     // lines written (kvcache rows may stand for several operations)
	Rate   float64 // lines per second of the log's clock (constant; RampTo > 0 ramps to it)
	RampTo float64 // when > 0, the rate grows linearly from Rate to RampTo over the log
	Keys   uint64  // distinct ids the Zipf draws from
	S      float64 // Zipf exponent of the read and write ids
	Reads  float64 // share of reads
	// Sequential gives writes increasing ids (an auto-increment key); reads draw from the
	// ids written so far, with the Zipf law over recency.
	Sequential bool
	Seed       uint64
	Start      int64 // first timestamp, seconds
}

// Write writes the log to w. Keys are "ns<k>:u:<id>" with k in 0..3 (one namespace per id
// mod 4) and id in decimal, so key_fields = { delimiter = ":", names = ["ns", "kind", "id"] }
// splits them.
func (g Synthetic) Write(w io.Writer) error {
	bw := bufio.NewWriterSize(w, 64<<10)
	r := rand.New(rand.NewPCG(g.Seed, 0x7eace))
	z := workload.NewZipf(max(g.Keys, 1), g.S, true)
	if g.Format == CSV {
		bw.WriteString("ts,op,key\n")
	}
	if g.Format == KVCache {
		bw.WriteString("op_time,key,key_size,op,op_count,size,cache_hits,ttl,usecase,sub_usecase\n")
	}
	var seq uint64
	t := 0.0
	var buf []byte
	for i := 0; i < g.Lines; i++ {
		rate := g.Rate
		if g.RampTo > 0 {
			rate += (g.RampTo - g.Rate) * float64(i) / float64(g.Lines)
		}
		t += r.ExpFloat64() / rate
		read := r.Float64() < g.Reads
		var id uint64
		switch {
		case g.Sequential && !read:
			seq++
			id = seq
		case g.Sequential:
			id = seq - min(z.Next(r, 0), seq)
		default:
			id = z.Next(r, 0)
		}
		key := fmt.Appendf(buf[:0], "ns%d:u:%d", id%4, id)
		buf = key
		sec := g.Start + int64(t)
		switch g.Format {
		case CSV:
			op := "write"
			if read {
				op = "read"
			}
			fmt.Fprintf(bw, "%s,%s,%s\n", strconv.FormatFloat(float64(g.Start)+t, 'f', 6, 64), op, key)
		case Twitter:
			op := "set"
			if read {
				op = "get"
			}
			fmt.Fprintf(bw, "%d,%s,%d,%d,%d,%s,0\n", sec, key, len(key), 100+id%300, id%17, op)
		case KVCache:
			op := "SET"
			if read {
				op = "GET"
			}
			fmt.Fprintf(bw, "%d,%s,%d,%s,1,%d,%d,0,1,1\n", sec, key, len(key), op, 100+id%300, b2i(read))
		}
	}
	return bw.Flush()
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}
