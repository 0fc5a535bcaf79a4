package units

import "time"

// Time is simulated time in integer nanoseconds since the scenario's t=0. Simulated time is
// exact: no floating point accumulates in the clock. The engine's clock (sim.Time) is this
// type, so that units, which reads and writes it, needs nothing of the engine.
type Time int64

// Units of simulated time.
const (
	Nanosecond  Time = 1
	Microsecond      = 1000 * Nanosecond
	Millisecond      = 1000 * Microsecond
	Second           = 1000 * Millisecond
	Minute           = 60 * Second
	Hour             = 60 * Minute
)

// Seconds returns t in seconds.
func (t Time) Seconds() float64 { return float64(t) / float64(Second) }

// Millis returns t in milliseconds.
func (t Time) Millis() float64 { return float64(t) / float64(Millisecond) }

// String formats t like a time.Duration.
func (t Time) String() string { return time.Duration(t).String() }
