package sim_test

import (
	"fmt"
	"math/rand/v2"
	"runtime"
	"testing"
	"time"

	"github.com/shardsim/shardsim/scenarios"
	"github.com/shardsim/shardsim/sim"
)

// BenchmarkPointRequests runs testdata/bench/hash12.toml (twelve single-core nodes, hash
// sharding, Poisson point writes, windows and histograms on) for b.N requests: one op is
// one simulated request, from arrival through queueing and service to its statistics.
// keys=zipf draws scrambled Zipf keys (s = 0.99, n = 1e7), an exact draw and a scramble of
// about 37 ns; keys=uniform draws uniform keys and so measures the engine itself.
func BenchmarkPointRequests(b *testing.B) {
	const rate = 60000 // testdata/bench/hash12.toml
	for _, keys := range []struct{ name, gen string }{
		{"zipf", `{ gen = "zipf", n = 10_000_000, s = 0.99 }`},
		{"uniform", `{ gen = "uniform", n = 10_000_000 }`},
	} {
		b.Run(fmt.Sprintf("nodes=12/keys=%s", keys.name), func(b *testing.B) {
			r, el := runBench(b, "../testdata/bench/hash12.toml", float64(b.N)/rate, "table.fields.user_id="+keys.gen)
			b.ReportMetric(float64(r.Streams[0].Offered)/el.Seconds(), "requests/s")
		})
	}
}

// BenchmarkScans runs testdata/bench/scan120.toml: each scan visits 120 partitions in 12
// subrequests. partitions=1000 gives the scanned key part 1,000 values instead, so each
// scan visits 1,000 partitions in 12 subrequests. It reports subrequests per second of
// wall time and the wall time of one whole scan (planning, 12 subrequests, statistics).
func BenchmarkScans(b *testing.B) {
	for _, parts := range []int64{120, 1000} {
		b.Run(fmt.Sprintf("partitions=%d", parts), func(b *testing.B) {
			const rate, subs = 2000, 12
			r, el := runBench(b, "../testdata/bench/scan120.toml", float64(b.N)/rate/subs+1,
				fmt.Sprintf("table.fields.bucket={ gen = \"categorical\", count = %d }", parts))
			st := r.Streams[0]
			if st.Partitions != parts*st.Offered {
				b.Fatalf("%d partitions over %d scans, want %d each", st.Partitions, st.Offered, parts)
			}
			b.ReportMetric(float64(st.Subrequests)/el.Seconds(), "subrequests/s")
			b.ReportMetric(float64(el.Nanoseconds())/float64(st.Offered), "ns/scan")
		})
	}
}

// runBench loads a benchmark scenario for secs of simulated time (plus sets), runs it under
// the benchmark's timer and returns the result and the wall time of the run alone.
func runBench(b *testing.B, path string, secs float64, sets ...string) (*sim.Result, time.Duration) {
	b.Helper()
	sets = append([]string{fmt.Sprintf("duration=%q", time.Duration(secs*1e9+1).String())}, sets...)
	sc, err := scenarios.Load(path, scenarios.Options{Sets: sets})
	if err != nil {
		b.Fatal(err)
	}
	m := sc.Variants[0].Model()
	b.ReportAllocs()
	b.ResetTimer()
	start := time.Now()
	r := sim.Run(m)
	el := time.Since(start)
	b.StopTimer()
	return r, el
}

// BenchmarkMinimalLoop is the yardstick for the engine: the least a simulator of the same
// system must do per request, hand-written for speed. Poisson arrivals at 60,000/s routed
// uniformly at random to twelve single-server FIFO queues with exponential service of mean
// 0.1 ms (the hash12 scenario), a typed binary heap of completions, and the mean latency;
// no keys, windows, histograms or fan-out. One op is one request.
func BenchmarkMinimalLoop(b *testing.B) {
	type ev struct {
		at    float64
		queue int32
	}
	const nq = 12
	r := rand.New(rand.NewPCG(1, 2))
	var heap []ev
	push := func(e ev) {
		heap = append(heap, e)
		i := len(heap) - 1
		for i > 0 {
			p := (i - 1) / 2
			if heap[p].at <= heap[i].at {
				break
			}
			heap[p], heap[i] = heap[i], heap[p]
			i = p
		}
	}
	pop := func() ev {
		top := heap[0]
		n := len(heap) - 1
		heap[0] = heap[n]
		heap = heap[:n]
		for i := 0; ; {
			c := 2*i + 1
			if c >= n {
				break
			}
			if c+1 < n && heap[c+1].at < heap[c].at {
				c++
			}
			if heap[i].at <= heap[c].at {
				break
			}
			heap[i], heap[c] = heap[c], heap[i]
			i = c
		}
		return top
	}
	var queues [nq][]float64 // arrival times waiting, head first
	var busy [nq]bool
	var head [nq]int
	const lambda, mean = 60000.0, 1e-4
	next := r.ExpFloat64() / lambda
	sum, done := 0.0, 0
	var serving [nq]float64 // arrival time of the request in service
	b.ReportAllocs()
	b.ResetTimer()
	start := time.Now()
	for done < b.N {
		if len(heap) == 0 || next < heap[0].at {
			q := r.IntN(nq)
			if !busy[q] {
				busy[q] = true
				serving[q] = next
				push(ev{at: next + r.ExpFloat64()*mean, queue: int32(q)})
			} else {
				queues[q] = append(queues[q], next)
			}
			next += r.ExpFloat64() / lambda
			continue
		}
		e := pop()
		q := e.queue
		sum += e.at - serving[q]
		done++
		if head[q] < len(queues[q]) {
			serving[q] = queues[q][head[q]]
			head[q]++
			push(ev{at: e.at + r.ExpFloat64()*mean, queue: q})
			if head[q] == len(queues[q]) {
				queues[q], head[q] = queues[q][:0], 0
			}
		} else {
			busy[q] = false
		}
	}
	el := time.Since(start)
	b.ReportMetric(float64(done)/el.Seconds(), "requests/s")
	if mean := sum / float64(done); done > 1000 && (mean <= 0 || mean > 0.01) {
		b.Fatalf("mean latency %v s is not an M/M/1 at rho = 0.5", mean)
	}
}

// BenchmarkSplitRun runs one scenario on as many workers as the benchmark has CPUs
// (sim.RunOn; `-cpu 1,2` compares one engine with two workers): open1000 is
// testdata/bench/open1000.toml (1,000 nodes, open-loop point reads and writes at
// 200,000/s), hash12 the engine benchmark's twelve nodes. One op is one simulated request.
func BenchmarkSplitRun(b *testing.B) {
	for _, c := range []struct {
		name, path string
		rate       float64
	}{
		{"open1000", "../testdata/bench/open1000.toml", 200000},
		{"hash12", "../testdata/bench/hash12.toml", 60000},
	} {
		b.Run(c.name, func(b *testing.B) {
			secs := float64(b.N)/c.rate + 1
			sc, err := scenarios.Load(c.path, scenarios.Options{Sets: []string{fmt.Sprintf("duration=%q", time.Duration(secs*1e9).String())}})
			if err != nil {
				b.Fatal(err)
			}
			v := sc.Variants[0]
			b.ReportAllocs()
			b.ResetTimer()
			r := sim.RunOn(runtime.GOMAXPROCS(0), v.Model)
			b.StopTimer()
			if want := min(runtime.GOMAXPROCS(0), len(v.Spec.Nodes)); r.Cores != want { // a worker serves one node at least
				b.Fatalf("ran on %d cores, want %d (%s)", r.Cores, want, r.OneCore)
			}
			var n int64
			for _, st := range r.Streams {
				n += st.Offered
			}
			b.ReportMetric(float64(n)/b.Elapsed().Seconds(), "requests/s")
		})
	}
}
