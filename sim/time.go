package sim

import "github.com/shardsim/shardsim/units"

// Time is simulated time in integer nanoseconds since the scenario's t=0 (units.Time: the
// engine's clock is declared beside the code that reads and writes it for people, which
// imports nothing of the engine).
type Time = units.Time

// Units of simulated time.
const (
	Nanosecond  = units.Nanosecond
	Microsecond = units.Microsecond
	Millisecond = units.Millisecond
	Second      = units.Second
	Minute      = units.Minute
	Hour        = units.Hour
)
