package trace_test

import (
	"bytes"
	"fmt"
	"math"
	"math/big"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/shardsim/shardsim/compile"
	"github.com/shardsim/shardsim/scenario"
	"github.com/shardsim/shardsim/scenarios"
	"github.com/shardsim/shardsim/sim"
	"github.com/shardsim/shardsim/trace"
)

// textKeyLog writes a csv log of n writes over secs seconds from 2025-11-27T08:00:00Z, at
// a rate that grows in proportion to the time (write i at secs·sqrt(i/n)), so that the
// busiest window is the last, not a tie that the first window wins; each
// keyed by kind's text form of its own time: "iso" (2025-11-27T08:00:01.234Z-17, a client
// suffix), "ulid", "uuidv7" (milliseconds, then random bits) or "uuidv4" (random).
func textKeyLog(kind string, n int, secs float64, seed uint64) []byte {
	return textKeyLogAt(kind, n, secs, seed, func(i int) float64 { return secs * math.Sqrt(float64(i)/float64(n)) })
}

// textKeyLogAt is textKeyLog with write i at at(i) seconds.
func textKeyLogAt(kind string, n int, secs float64, seed uint64, at func(int) float64) []byte {
	r := rand.New(rand.NewPCG(seed, 0x7e47))
	start := time.Date(2025, 11, 27, 8, 0, 0, 0, time.UTC)
	var b bytes.Buffer
	b.WriteString("ts,op,key\n")
	for i := range n {
		ts := at(i)
		at := start.Add(time.Duration(ts * 1e9))
		ms := uint64(at.UnixMilli())
		var key string
		switch kind {
		case "iso":
			key = fmt.Sprintf("%s-%02d", at.Format("2006-01-02T15:04:05.000Z"), r.IntN(100))
		case "ulid":
			key = ulid(ms, r)
		case "uuidv7":
			key = fmt.Sprintf("%08x-%04x-7%03x-%04x-%012x", ms>>16, ms&0xffff, r.IntN(1<<12), 0x8000|r.IntN(1<<14), r.Uint64()>>16)
		case "uuidv4":
			key = fmt.Sprintf("%08x-%04x-4%03x-%04x-%012x", r.Uint32(), r.IntN(1<<16), r.IntN(1<<12), 0x8000|r.IntN(1<<14), r.Uint64()>>16)
		}
		fmt.Fprintf(&b, "%.6f,write,%s\n", ts, key)
	}
	return b.Bytes()
}

// ulid is the ULID of millisecond ms with random bits from r: 128 bits (48 of time, 80
// random) in 26 characters of Crockford's base32.
func ulid(ms uint64, r *rand.Rand) string {
	v := new(big.Int).SetUint64(ms)
	v.Lsh(v, 80)
	v.Or(v, new(big.Int).Lsh(new(big.Int).SetUint64(r.Uint64()>>48), 64))
	v.Or(v, new(big.Int).SetUint64(r.Uint64()))
	const digits = "0123456789ABCDEFGHJKMNPQRSTVWXYZ"
	out := make([]byte, 26)
	m := new(big.Int)
	for i := 25; i >= 0; i-- {
		v.DivMod(v, big.NewInt(32), m)
		out[i] = digits[m.Int64()]
	}
	return string(out)
}

// TestTextKeysKeepOrder: logs of 20,000 writes (over 20 s, at a rate growing from 0 to
// 2,000 a second, seed 3) keyed
// by ISO-8601 times, ULIDs, UUIDv7 and UUIDv4, analyzed whole (no --delimiter) under range
// over 8 shards, split as analyze and a replay split them (the first tenth of the log):
//
//   - ISO, ULID and UUIDv7 grow with time: every write after the first tenth (its first
//     6.3 s) sorts past the last split, so the busiest window (the last second, 1,900
//     writes) puts all of its writes on the last shard (the test asks >= 90%), as does
//     the mean window (>= 90% too: the first tenth is a tenth of the writes), and the part
//     is flagged monotonic (correlation >= 0.7); fit draws it as a time, a ulid or a
//     uuidv7.
//   - UUIDv4 is random: the busiest window's 1,900 writes spread over 8 ranges cut from
//     2,000 random keys, so its hottest shard takes about 1/8 plus a few standard errors
//     (sqrt(1/8·7/8/1900) = 0.008 each, and the ranges' own noise, about 6% of 1/8); the
//     test asks at most 2x even (25%), and no monotonic flag (|correlation| < 0.7; its
//     expectation is 0).
//
// Before text keys kept their order, a text key was hashed, and all four looked like
// UUIDv4 here (14-15% for the hottest shard), and none was flagged.
func TestTextKeysKeepOrder(t *testing.T) {
	const shards = 8
	opt := trace.Options{Format: trace.CSV}
	for _, kind := range []string{"iso", "ulid", "uuidv7", "uuidv4"} {
		data := textKeyLog(kind, 20_000, 20, 3)
		d := textRangeDesign(t, data, shards)
		a := analyzeBytes(t, data, opt, trace.Config{Design: d})
		ws := a.Design.WriteSpread
		m := a.Keys.Monotonic[0]
		t.Logf("%s (%s): busiest window's hottest shard %d takes %.4f; monotonic score %.3f", kind, a.Keys.Top[0].Key, ws.BusiestShard, ws.BusiestShare, m.Score)
		if kind == "uuidv4" {
			if ws.BusiestShare > 2.0/shards || m.Monotonic {
				t.Errorf("uuidv4: busiest window's hottest shard takes %.4f (want <= %.2f), monotonic %v (score %.3f; want false)", ws.BusiestShare, 2.0/shards, m.Monotonic, m.Score)
			}
			continue
		}
		if ws.BusiestShare < 0.9 || ws.BusiestShard != shards-1 || ws.MeanHottestShare < 0.9 {
			t.Errorf("%s: busiest window's hottest shard is %d with %.4f of its writes (the mean window's %.4f), want the last shard with >= 0.9", kind, ws.BusiestShard, ws.BusiestShare, ws.MeanHottestShare)
		}
		// The splits are text too: 7 of them, in increasing order, each the beginning of a
		// key of the log's first tenth (the first 6.3 s: 2025-11-27T08:00:00 to :06).
		if sp := a.Design.Splits; len(sp) != shards-1 {
			t.Errorf("%s: splits %q, want %d", kind, sp, shards-1)
		} else {
			for i, row := range sp {
				if len(row) != 1 || i > 0 && row[0] <= sp[i-1][0] {
					t.Errorf("%s: splits %q are not increasing single texts", kind, sp)
					break
				}
			}
			if prefix := map[string]string{"iso": "2025-11-27T08:00:0", "ulid": "01KB257", "uuidv7": "019ac453-"}[kind]; !strings.HasPrefix(sp[0][0], prefix) {
				t.Errorf("%s: first split %q, want a text beginning %q", kind, sp[0][0], prefix)
			}
		}
		// At an even rate (1,000 writes a second) every window is as busy: the busiest
		// is the one whose hottest shard takes the most, not the first (whose writes
		// the splits were cut from).
		even := textKeyLogAt(kind, 20_000, 20, 3, func(i int) float64 { return float64(i) / 1000 })
		if ev := analyzeBytes(t, even, opt, trace.Config{Design: textRangeDesign(t, even, shards)}).Design.WriteSpread; ev.BusiestShare < 0.9 {
			t.Errorf("%s at an even rate: the busiest window's hottest shard takes %.4f, want >= 0.9", kind, ev.BusiestShare)
		}
		if !m.Monotonic || m.Score < 0.7 {
			t.Errorf("%s: monotonic %v, score %.3f; want flagged", kind, m.Monotonic, m.Score)
		}
		// fit draws the part from the time-ordered generator it is written as.
		fa := analyzeBytes(t, data, opt, trace.Config{Parts: true})
		want := map[string]string{"iso": "time", "ulid": "ulid", "uuidv7": "uuidv7"}[kind]
		fitted := trace.Fit(fa, trace.FitOptions{Name: "fit-" + kind})
		if !bytes.Contains(fitted.TOML, []byte(fmt.Sprintf("key = { gen = %q }", want))) {
			t.Errorf("%s: fitted key is not gen = %q:\n%s", kind, want, fitted.TOML)
		}
	}
}

// textRangeDesign is the range design over shards shards on the whole key of a csv log,
// split as analyze and a replay split it (trace.Sample: the log's first tenth).
func textRangeDesign(t *testing.T, data []byte, shards int) *trace.Design {
	t.Helper()
	f := compile.AnalysisFile([]string{"key"}, []string{"key"}, "range", shards, 0)
	s, probs := scenario.Resolve(&f)
	if len(probs) > 0 {
		t.Fatal(probs)
	}
	d := compile.TraceDesign(s, []string{"key"}, nil, nil)
	rd, err := trace.NewReader(bytes.NewReader(data), trace.Options{Format: trace.CSV})
	if err != nil {
		t.Fatal(err)
	}
	sample, times, err := trace.Sample(rd, d, compile.TraceSplitSample(shards))
	if err != nil {
		t.Fatal(err)
	}
	return compile.TraceDesign(s, []string{"key"}, sample, times, d.Orders...)
}

// TestReplayTextKeys replays the UUIDv7 and UUIDv4 logs of TestTextKeysKeepOrder (20,000
// writes) under range and hash over 8 shards: each shard serves exactly what analyze's
// routing of the log predicts (the same text order in both, anchored on the log's first
// key), UUIDv7 under range sends at least 90% of the writes to the last shard (the first
// tenth of the log spreads; after it every write is past the last split: 0.9 + 0.1/8 on
// this log); under hash every shard is within 10% of even (20,000 writes: a shard's
// standard error is sqrt(20000·1/8·7/8) = 47, 1.9% of 2,500), and UUIDv4 under range
// within 2x of even (its ranges are cut from 2,000 keys: each range's share has a
// standard error near 6% of 1/8, and the test leaves room for the largest of eight).
func TestReplayTextKeys(t *testing.T) {
	dir := t.TempDir()
	const shards = 8
	opt := trace.Options{Format: trace.CSV}
	for _, kind := range []string{"uuidv7", "uuidv4"} {
		data := textKeyLog(kind, 20_000, 20, 3)
		if err := os.WriteFile(filepath.Join(dir, kind+".csv"), data, 0o644); err != nil {
			t.Fatal(err)
		}
		for _, scheme := range []string{"range", "hash"} {
			src := fmt.Sprintf(`name = "replay"
duration = "30s"
[cluster]
nodes = 4
cores = 4
[table.fields]
key = { gen = "uuid" }
[keyspace]
scheme = %q
shards = %d
key    = ["key"]
[[streams]]
name  = "log"
cost  = "0.1ms"
trace = { path = %q, format = "csv" }
`, scheme, shards, kind+".csv")
			sc, err := scenarios.LoadBytes(filepath.Join(dir, "replay.toml"), []byte(src), scenarios.Options{})
			if err != nil {
				t.Fatal(err)
			}
			res := sim.Run(sc.Variants[0].Model())

			f := compile.AnalysisFile([]string{"key"}, []string{"key"}, scheme, shards, 0)
			s, probs := scenario.Resolve(&f)
			if len(probs) > 0 {
				t.Fatal(probs)
			}
			d := compile.TraceDesign(s, []string{"key"}, nil, nil)
			if scheme == "range" {
				rd, _ := trace.NewReader(bytes.NewReader(data), opt)
				sample, times, err := trace.Sample(rd, d, compile.TraceSplitSample(shards))
				if err != nil {
					t.Fatal(err)
				}
				d = compile.TraceDesign(s, []string{"key"}, sample, times)
			}
			a := analyzeBytes(t, data, opt, trace.Config{Design: d})
			var total int64
			for i, sh := range res.Shards {
				total += sh.Ops
				if want := int64(a.Design.Shards[i].WriteShare*float64(a.Writes) + 0.5); sh.Ops != want {
					t.Errorf("%s, %s: shard %d served %d writes, analyze routes %d to it", kind, scheme, i, sh.Ops, want)
				}
			}
			if total != 20_000 {
				t.Fatalf("%s, %s: %d writes replayed, want 20,000", kind, scheme, total)
			}
			last := float64(res.Shards[shards-1].Ops) / float64(total)
			switch {
			case kind == "uuidv7" && scheme == "range":
				if last < 0.9 {
					t.Errorf("uuidv7, range: the last shard served %.4f of the writes, want >= 0.9", last)
				}
			case scheme == "range":
				for i, sh := range res.Shards {
					if r := float64(sh.Ops) / (float64(total) / shards); r > 2 || r < 0.5 {
						t.Errorf("%s, %s: shard %d served %d writes, %.2fx even; want within 2x", kind, scheme, i, sh.Ops, r)
					}
				}
			default:
				for i, sh := range res.Shards {
					if d := float64(sh.Ops)/(float64(total)/shards) - 1; d > 0.1 || d < -0.1 {
						t.Errorf("%s, %s: shard %d served %d writes, %.1f%% from even; want within 10%%", kind, scheme, i, sh.Ops, 100*d)
					}
				}
			}
		}
	}
}

// isoSecondsLog is a csv log of n writes a second apart, keyed by the ISO-8601 time (to the
// second) of from plus step seconds per write.
func isoSecondsLog(from time.Time, step, n int) []byte {
	var b bytes.Buffer
	b.WriteString("ts,op,key\n")
	for i := range n {
		fmt.Fprintf(&b, "%d,write,%s\n", i, from.Add(time.Duration(i*step)*time.Second).Format("2006-01-02T15:04:05Z"))
	}
	return b.Bytes()
}

// TestTextKeysLeaveAnchorEarly: logs whose keys leave the log's first key (the anchor)
// within its first bytes, analyzed under range over 8 shards. 20,000 keys a second apart
// running backwards from 2030-01-01T00:00:00Z (all but the first in 2029, so they share
// only "20" with the anchor): the splits, cut from the first tenth, are 7 distinct texts
// of 2029-12-31T23:, and byte order puts the rest of the log (the earliest times, 90%)
// on the first shard. 21,600 keys running forwards from 2029-12-31T23:59:00Z, whose first
// tenth crosses into 2030: the splits are 7 distinct texts of 2030-01-01T00:, each shard
// but the last gets an equal 1/80 and the last the rest.
func TestTextKeysLeaveAnchorEarly(t *testing.T) {
	const shards = 8
	opt := trace.Options{Format: trace.CSV}
	for _, c := range []struct {
		name   string
		data   []byte
		prefix string
		hot    int
	}{
		{"backward", isoSecondsLog(time.Date(2030, 1, 1, 0, 0, 0, 0, time.UTC), -1, 20_000), "2029-12-31T23:", 0},
		{"forward", isoSecondsLog(time.Date(2029, 12, 31, 23, 59, 0, 0, time.UTC), 1, 21_600), "2030-01-01T00:", shards - 1},
	} {
		a := analyzeBytes(t, c.data, opt, trace.Config{Design: textRangeDesign(t, c.data, shards)})
		sp := a.Design.Splits
		if len(sp) != shards-1 {
			t.Fatalf("%s: splits %q, want %d", c.name, sp, shards-1)
		}
		for i, row := range sp {
			if len(row) != 1 || !strings.HasPrefix(row[0], c.prefix) || i > 0 && row[0] <= sp[i-1][0] {
				t.Errorf("%s: splits %q, want increasing distinct texts beginning %q", c.name, sp, c.prefix)
				break
			}
		}
		for _, s := range a.Design.Shards {
			want := 0.1 / shards
			if s.ID == c.hot {
				want = 1 - float64(shards-1)*want
			}
			if math.Abs(s.WriteShare-want) > 0.002 {
				t.Errorf("%s: shard %d takes %.4f of the writes, want %.4f", c.name, s.ID, s.WriteShare, want)
			}
		}
	}
}
