// Package cluster runs a sweep or capacity search across machines (docs/cluster.md): the
// work items and their manifest, the static plan dealt by estimated work, claims with
// leases, the build's identity, and the merge that streams the items back into the same
// rows and answers, byte for byte, as one machine computes.
package cluster
