// Package sim is the discrete-event engine: requests arrive, are routed to shards, wait in
// their node's FIFO queue, hold a core for their service time and complete. It is a pure,
// single-threaded state machine over integer virtual time; results go to a Result.
package sim
