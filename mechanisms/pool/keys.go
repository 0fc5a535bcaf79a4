package pool

import (
	"fmt"

	"github.com/shardsim/shardsim/scenario"
)

// The connection pool's key ([[streams]] pool: docs/mitigations.md, "Connection pool"),
// its checks, and the setting it turns into (Pool, pool.go).

var poolKey = scenario.StreamKey[*int]("pool", "none",
	"a client connection pool of this many connections (1 to 1,000,000): at most that many of the stream's requests are in flight, from their first attempt's send to their outcome (retries included); the others wait in the client for a connection, oldest first, and the wait shows apart from the database's queue (docs/mitigations.md, \"Connection pool\"). Not on a `trace` stream")

const maxPool = 1_000_000

func init() { scenario.RegisterMechanism(resolvePools) }

// resolvePools gives each stream with a pool its setting.
func resolvePools(c *scenario.Checker, f *scenario.File, s *scenario.Resolved) {
	for i, st := range f.Streams {
		size, ok := poolKey.In(st.Ext)
		if !ok {
			continue
		}
		key := fmt.Sprintf("streams[%d].pool", i)
		switch {
		case *size < 1 || *size > maxPool:
			c.Add(key, "must be a whole number from 1 to %d (got %d)", maxPool, *size)
		case st.Trace != nil:
			c.Add(key, "a trace stream replays its log as it is, so it takes no pool")
		default:
			if j := s.StreamIndex(st.Name); j >= 0 {
				s.Mechanisms = append(s.Mechanisms, Pool{Stream: j, Name: st.Name, Size: *size})
			}
		}
	}
}
