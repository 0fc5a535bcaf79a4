// Package workload generates what a simulated client sends: arrival times that follow a
// rate schedule, and the field values of every request (Zipf, time-ordered, categorical...).
// It imports only the standard library and knows nothing of shards, nodes or the engine.
//
// Field generators (Generator, one per file): Uniform, Zipf (exact for every exponent
// s >= 0, optionally scrambled by a bijection), Hotspot, Categorical (alias table), UUID,
// and the time-ordered Snowflake, Sequence and Time, which encode the row time relative
// to a common epoch 2^40 ms before t = 0 (see EpochOffsetMillis) and have inverse helpers
// (SnowflakeMillis, SequenceMicros, TimeOf).
//
// Arrival processes (Arrivals) follow a piecewise linear rate Schedule: Poisson, an exact
// non-homogeneous Poisson process, and UniformArrivals, its deterministic counterpart.
// Ages (Age) say how old a read's target row is: ConstAge, ExpAge, UniformAge.
//
// Every Next and Draw is O(1) and allocation-free. Generators and arrival processes may
// keep state and are not safe for concurrent use; all randomness comes from the
// *rand.Rand passed in, so a run is reproducible from its seeds. Constructors panic on
// invalid parameters; the scenario loader is expected to validate them first (see
// Schedule.Check).
package workload
