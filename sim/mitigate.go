package sim

// The types below describe the mitigations of docs/mitigations.md: what a client, a cache, the
// storage layer and an operator do about a hot spot. Each is off when its zero value or nil
// is given, and a model without any of them runs exactly as before.

// Client is how a stream's client behaves.
type Client struct {
	// Timeout is how long the client waits for an attempt before it gives up on it; the
	// servers still do the work. 0: the client waits for ever.
	Timeout Time
	// Retries is how many further attempts the client makes after an attempt timed out,
	// was rejected by a full queue or was throttled.
	Retries int
	// Backoff and BackoffMax shape the wait before retry k (k = 1, 2, ...): exponential
	// backoff with full jitter, uniform on [0, min(BackoffMax, Backoff·2^(k-1))).
	Backoff    Time
	BackoffMax Time
	// Limit is a client-side token bucket on the stream's requests; nil: none.
	Limit *Limit
}

// Limit is a token bucket: Rate tokens per second, at most Burst banked. A request takes
// one token. Without a token it is rejected (counted as Limited) or, with Queue, waits in
// FIFO order for its token; the wait is part of its latency.
type Limit struct {
	Rate  float64
	Burst int
	Queue bool
}

// ActionKind says what an Action changes.
type ActionKind uint8

const (
	SetCores      ActionKind = iota // Node's cores become Cores
	SetQueueLimit                   // Node's queue limit becomes QueueLimit
	SetLimit                        // Stream's client limit becomes Limit (nil: none)
	Switch                          // mechanism Name, a client-side one of Model.Mechanisms, is turned on (On) or off
	Migrate                         // a migration starts (mechanisms/migrate, which applies it)
	AddNodes                        // nodes join and shards move to them (mechanisms/rebalance applies it)
)

// Action is a timed operator action: at At, one setting changes.
type Action struct {
	At         Time
	Kind       ActionKind
	Node       int
	Cores      int
	QueueLimit int
	Stream     int
	Limit      *Limit
	// Name and On are a Switch's: the mechanism turned on or off, which applies the action
	// itself at At plus the network delay (the engine only notes it).
	Name string
	On   bool
	// Text says what was done, for the alert timeline.
	Text string
}
