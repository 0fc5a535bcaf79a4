// Package waitlist holds the engine's allocation-free containers of waiting slots, shared by
// sim and the mechanisms outside it: a doubly linked list threaded through a slice by index
// (List, Link), a table of the locks held now with their waiters (Table), and a growable
// ring of slots in arrival order (FIFO). Each grows by doubling and never shrinks, so in
// steady state none allocates (docs/architecture.md, "Inside the engine").
package waitlist
