package compile

import (
	"fmt"
	"math"

	"github.com/shardsim/shardsim/scenario"
)

// The limits of a run: what a variant's series and histograms may hold (maxSeriesCells,
// maxStreamWindows) and the requests its streams may issue (MaxRequests).
const (
	maxSeriesCells   = 20_000_000 // shards and nodes x windows: about 480 MB
	maxStreamWindows = 200_000    // streams x windows: histograms at most 28 KB each (below 2.8 h), about 8 cells of 8 bytes in practice
)

// CheckLimits returns probs, the problems scenario.Resolve found in s, with those of the
// run's limits after them: its series and histograms must fit, and unless s already has
// problems, its requests must stay within MaxRequests. The loader checks every variant so.
func CheckLimits(s *scenario.Resolved, probs []scenario.FieldError) []scenario.FieldError {
	c := &limitChecker{probs: probs, refused: len(probs) > 0}
	checkMemory(c, s)
	checkWork(c, s)
	return c.probs
}

// limitChecker gathers the problems of the limits after the problems found before.
type limitChecker struct {
	probs   []scenario.FieldError
	refused bool // problems were found before the limits were checked
}

func (c *limitChecker) add(key, format string, args ...any) {
	c.probs = append(c.probs, scenario.FieldError{Key: key, Msg: fmt.Sprintf(format, args...)})
}

// MaxRequests bounds the requests a variant's streams issue in a run: at the engine's
// 5 to 10 million requests per second, about half an hour of simulation.
const MaxRequests = 10_000_000_000

// checkWork refuses a run that would issue more than MaxRequests requests: a rate of 10^12
// requests per second on a bounded queue rejected every request and never finished.
func checkWork(c *limitChecker, s *scenario.Resolved) {
	if s.Duration <= 0 || len(s.Streams) == 0 || c.refused {
		return // the problems found already say what to fix first
	}
	total, top, topN := 0.0, 0, -1.0
	for i := range s.Streams {
		n := s.Streams[i].Integral(0, int64(s.Duration))
		if math.IsNaN(n) {
			return // a stream with a bad rate, reported at its key
		}
		total += n
		if n > topN {
			top, topN = i, n
		}
	}
	if total > MaxRequests {
		c.add(fmt.Sprintf("streams[%d]", top), "the streams would issue about %.3g requests in the run (this one %.3g); at most %.0e are allowed: lower the rates, the load_factor or the duration",
			total, topN, float64(MaxRequests))
	}
}

// seriesCellBytes is what one window of a shard's or node's time series keeps (24 bytes),
// for the bound on a run's series (checkMemory) and the memory estimate (RunMemory).
const seriesCellBytes = 24

// checkMemory refuses a variant whose time series would not fit (maxSeriesCells,
// maxStreamWindows): every shard keeps about 24 bytes per window, and every stream a
// latency histogram of up to 28 KB per window. A variant that splits shards keeps series
// for as many shards as it may reach.
func checkMemory(c *limitChecker, s *scenario.Resolved) {
	if s.Window <= 0 || s.Duration <= 0 {
		return
	}
	windows := int64(s.Duration/s.Window + min(s.Duration%s.Window, 1))
	shards, what := max(s.Shards, s.MaxShards), "shards and nodes"
	if shards > s.Shards {
		what = "shards (keyspace.split.max_shards) and nodes"
	}
	if s.Streamed() {
		// The shard series go to shards.csv as the windows close; the node series stay.
		if cells := windows * int64(len(s.Nodes)); cells > maxSeriesCells {
			c.add("window", "%d windows x %d nodes need about %d MB of node time series (the shard series are streamed to shards.csv); at most %d cells (about %d MB) are allowed: use a wider window",
				windows, len(s.Nodes), cells*seriesCellBytes>>20, maxSeriesCells, maxSeriesCells*seriesCellBytes>>20)
		}
	} else if cells := windows * int64(shards+len(s.Nodes)); cells > maxSeriesCells {
		c.add("window", "%d windows x %d %s need about %d MB of time series; at most %d cells (about %d MB) are allowed: use a wider window",
			windows, shards+len(s.Nodes), what, cells*seriesCellBytes>>20, maxSeriesCells, maxSeriesCells*seriesCellBytes>>20)
	}
	if hists := windows * int64(len(s.Streams)); hists > maxStreamWindows {
		c.add("window", "%d windows x %d streams keep %d latency histograms; at most %d stream-windows are allowed: use a wider window",
			windows, len(s.Streams), hists, maxStreamWindows)
	}
}
