package report

import (
	"fmt"

	"github.com/shardsim/shardsim/figures/metrics"
	"github.com/shardsim/shardsim/sim"
	"github.com/shardsim/shardsim/units"
)

// formatKey names a key of stream in the design's terms (metrics.Variant.KeyName).
func formatKey(v *metrics.Variant, stream int, values []uint64) string {
	return v.KeyName(stream, values)
}

// formatPartition names a partition key that stream wrote.
func formatPartition(v *metrics.Variant, stream int, parts []uint64) string {
	return v.PartitionName(stream, parts)
}

// EventSummary is one change during the run: an operator action, a shard split or move.
type EventSummary struct {
	At      string  `json:"at"`
	AtS     float64 `json:"at_s"`
	Kind    string  `json:"kind"`
	Shard   *int    `json:"shard,omitempty"`
	Message string  `json:"message"`
}

// eventText words one event of a run: a move in the core's words, any other in those of
// the mechanism that recorded it (Text), or by its kind.
func eventText(e sim.Event) string {
	if e.Kind == sim.EventMove {
		return fmt.Sprintf("shard %d moved to node %d", e.Shard, e.Node)
	}
	if e.Text != "" {
		return e.Text
	}
	return e.Kind.String()
}

func eventsOf(sc *metrics.Scenario, r *sim.Result) []EventSummary {
	var out []EventSummary
	for _, e := range r.Events {
		es := EventSummary{At: units.Clock(sc.Start, e.At, units.TimeOfDay), AtS: units.Round(e.At.Seconds(), 6), Kind: e.Kind.String(), Message: eventText(e)}
		if e.Shard >= 0 {
			s := e.Shard
			es.Shard = &s
		}
		out = append(out, es)
	}
	return out
}
