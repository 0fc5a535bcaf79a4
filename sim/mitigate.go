package sim

// The types below describe the client's mitigations of docs/mitigations.md: its timeouts,
// retries and rate limit. Each is off when its zero value or nil is given. What a cache, the
// storage layer and an operator do about a hot spot is theirs (mechanisms/).

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
