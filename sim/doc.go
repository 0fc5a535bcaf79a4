// Package sim is the discrete-event engine: requests arrive, are routed to shards, wait in
// their node's FIFO queue, hold a core for their service time and complete. It is a pure,
// single-threaded state machine over integer virtual time; results go to a Result.
//
// # The core and its mechanisms
//
// The core (engine.go) is events, routing and queues: a stream's arrival plans its
// request's visits (arrive), each visit becomes a subrequest that reaches its shard's node
// (reach), waits in the node's queue or takes a core (start), and ends (done); the
// request completes when its last subrequest has (finish). The client, where every request
// starts and ends, is the core's too: its timeouts, retries with backoff and rate limit
// (client.go, timers.go), closed-loop clients (closed.go) and detection's sample
// (observe.go) keep their state in the stream's and the slots', and their events (heap.go's
// evKind below evFixed: evTimer, evTimers, evSend, evRelease, evIssue) are dispatched by the
// core's step (rare), as the end of a subrequest's service, evDone, is. Everything else is
// a mechanism, and every mechanism plugs in one way: a Setting, outside sim. The core names
// no mechanism: only the component interface (component.go, mechanism.go, watch.go) and
// the model's and the result's vocabulary (model.go, result.go, mitigate.go) may; what the
// core tests is named for what it does with it or the Core call that makes it (noReq,
// copyMark, applyMark, detachMark).
//
// A new mechanism is a folder of its own under mechanisms/, outside sim: its settings type
// implements Setting (component.go, the engine's one exported component interface),
// Model.Mechanisms carries it, and its On method sets the mechanism up through a Core and
// attaches it to the general hooks the core offers: a RequestTaker that may answer a
// stream's requests itself as they are issued (TakeStream), a RequestGate before a
// stream's sends (GateStream), a SubAdmit that may refuse a subrequest as it reaches its
// node, before the NodeGates (AdmitSubs; Refuse ends what it refuses, for a failure cause
// the mechanism registered with RegisterCause), a NodeGate at the nodes before their
// queues (GateNodes, or GateNodesFirst right after the SubAdmits), a
// SubWatcher of issued requests and new subrequests
// (WatchSubs), a ServiceStart that adds its node's own CPU to a subrequest's service when
// a core takes it (StartSubs), a SubEnd that may hold a client subrequest's completion
// when its service ends (EndSubs; EndSubsLast after every such hook), a WindowWatcher
// told as each window closes
// (WatchWindows), a WriteDone told of each client write's end (WatchWrites), a
// ReadRouter that chooses each read's node (RouteReads), shards a ShardGrower adds to the
// table during the run (PlaceShard,
// MoveShard, KeepShards), its event kinds (NewEventKind, Register, a WrapUpper for
// its figures at the end) and its waits (NewWaits, waits.go), which every output reports.
// A Setting with shards of its own (a ShardOwner) adds them (AddShards) before the result
// is sized, and may plan a stream's requests through a planner of its own (Replan, or
// ReplanAt during the run). A mechanism may copy rows in batches of background work (a
// Copier: CopyBy, Copy), send writes nobody waits for (an Applier: ApplyBy, Apply), be
// told of the CPU of the writes and copies the cores take (a WorkWatcher: WatchWork) and
// of every request's end (an EndWatcher: WatchEnds). A
// Setting that must have the streams ready for what it does later (an Initer) says so
// before they are set up (MayLimit: a client limit an action may set). What a mechanism
// did of its own it reports (Report) into Result.Reports, as a type of figures/metrics,
// whose figures find it by its type (the read cache's counts, row locks' waits): the
// Result's own fields, its streams' and their windows' included, are the core's.
// Every mechanism under mechanisms/ is built so, each in its own folder
// (docs/architecture.md, "Where a new thing goes"). What a Setting registers (its event
// kinds' Handlers, its WindowWatchers) is the registry's (mechanism.go), and the request
// path's hooks are the gates'; the core tests each list's length, so a mechanism that is
// off costs the hot path nothing more.
//
// # State by owner
//
// The engine's state is grouped by who owns it, for the parallel engine (parallel.go),
// which splits the nodes among workers:
//
//   - per node: nodeTable (nodes.go): a node's cores, its queue and its series;
//   - per shard: shardTable (shards.go, with each shard's throttled windows), indexed by
//     shard: it belongs to the node serving its shard (as do partition limits' buckets, the
//     splits' recent keys, row locks and page latches, mechanisms/, by shard, row and page,
//     and an index partition's buckets, mechanisms/index, by index shard);
//   - per stream (the clients' side): streamState (stream.go): arrivals, planning, the
//     client's limit and timers, detection, latency counts;
//   - global: the event heap and its tie-break counter (heap.go), the slots of requests
//     and subrequests in flight (slots.go), the engine's own random numbers (aux), and
//     the mechanisms that couple partitions (a migration, mechanisms/migrate; a
//     rebalance, mechanisms/rebalance; the read cache, mechanisms/cache);
//   - what the run records: the recorder (recorder.go), which builds the Result: the
//     window cursor (window.go), the open latency windows (hist.go) and fine ones
//     (detail.go), a window sink's ring (sink.go), the capacity series, the totals and the
//     mechanisms' waits (waits.go). It holds no engine; its methods take the streams and
//     tables they read as arguments.
//
// The engine struct has 14 fields, most of them these groups as embedded values, whose
// fields cost the hot path nothing more than the engine's own, and 77 methods of its own.
//
// A mechanism keeps what belongs to a node or a shard in arrays indexed by node or shard,
// apart from its global state, so that a partition's part can be cut out of it.
//
// # One run on several workers
//
// RunOn splits a run's nodes among workers, each a whole engine over a model of its own
// that draws every arrival and serves its own nodes' subrequests; the merge (parallel.go)
// puts their figures together, exactly. A mechanism that couples the nodes or feeds back
// to the clients keeps a run on one engine: a new one is named in OneCoreReason.
package sim
