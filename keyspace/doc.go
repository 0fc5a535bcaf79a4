// Package keyspace turns a row's field values into a partition key and a key into the shard
// that owns it. It holds the key design (parts, time buckets, salt), the shard schemes and
// the planners that say which shards, and how many partitions on each, one request visits.
package keyspace
