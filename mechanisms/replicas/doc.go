// Package replicas is the shards' followers (docs/mitigations.md, "Followers"): follower k
// of a shard lives on the k-th node after its leader's, applies every write the leader has
// applied, and, with read_from = "any", serves reads as the leader does.
package replicas
