package keyspace

// Splitter wraps a scheme so that its shards can be split while a run goes on, as range
// stores split a busy or large range and DynamoDB splits a hot partition. Shard ids below
// the base scheme's Shards() are the base scheme's; each split creates the next id, up to
// Max()-1. A split cuts one shard's keys at a split value: on a range scheme the key
// itself (so the new shard owns a contiguous range, the upper half); on a hash scheme a
// second hash of the key (so the new shard owns half of the old one's keys, by hash).
//
// TODO(issue 7): implementation.
type Splitter struct {
	base Scheme
	max  int
}
