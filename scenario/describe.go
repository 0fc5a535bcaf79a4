package scenario

import (
	"github.com/shardsim/shardsim/detect"
	"github.com/shardsim/shardsim/sim"
)

// Scenario is the scenario-wide part of a run's description: what the readers of results
// (the report, sweeps) need to label them, and nothing of how the file was loaded.
type Scenario struct {
	Name        string
	Description string
	Seed        uint64
	Start       sim.Time // wall-clock time of day of t = 0
	Duration    sim.Time
	Warmup      sim.Time
	Window      sim.Time
	// Claims are the story's claims, their variants named in full (see ClaimSpec).
	Claims []ClaimSpec
}

// Variant is one design of a run as the readers of results see it: its name, its streams
// and its resolved spec (nil for a variant that was not selected, which only has a name).
type Variant struct {
	Name        string
	Description string
	Streams     []StreamInfo
	Spec        *Resolved
}

// StreamInfo names a stream, its operation and its p99 alert thresholds.
type StreamInfo struct {
	Name string
	Op   sim.Op
	SLO  []sim.Time
	// RetryLabel is what the stream's retries mean (retry_label; "" when unnamed).
	RetryLabel string
}

// NewVariant describes a resolved design under a name.
func NewVariant(name, description string, s *Resolved) Variant {
	v := Variant{Name: name, Description: description, Spec: s}
	if s != nil {
		for _, st := range s.Streams {
			v.Streams = append(v.Streams, StreamInfo{Name: st.Name, Op: st.Op, SLO: st.SLO, RetryLabel: st.RetryLabel})
		}
	}
	return v
}

// Detect returns the design's detection settings, defaults applied.
func (v *Variant) Detect() detect.Config {
	if v.Spec == nil {
		return detect.Default
	}
	return v.Spec.Detect
}
