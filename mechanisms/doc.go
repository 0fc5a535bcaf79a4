// Package mechanisms is the scenario side of the mechanisms that bring their own keys
// (a page latch, a connection pool): each file declares its keys in the tables of the
// scenario that hold them (scenario.TableKey, scenario.StreamKey), checks them, and registers a
// resolver (scenario.RegisterMechanism) that turns them into the sim.Setting its engine file
// in sim reads (sim/latch.go, sim/pool.go). scenario keeps the language's core and does not
// import this package; the scenario loader does, so that every command knows the keys.
// docs/architecture.md says where a new mechanism goes.
package mechanisms
