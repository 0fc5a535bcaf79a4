package metrics

import "math"

// Relaxation is about how long a queue of cores servers, each serving at a mean service
// time of service seconds and busy a fraction rho of the time, takes to forget where it
// started: the relaxation time of an M/M/1 queue, 1/(mu (1 - sqrt(rho))^2) (Morse's
// result; see Kleinrock, Queueing Systems vol. 1, section 2.5), taken with the pooled
// service rate c mu, as a queue of c servers behaves in heavy traffic. It is a scale, not
// a promise: a run that starts empty and measures for a few of these has a tail latency
// still below the stationary one, and more so the closer rho is to 1. It returns 0 for an
// idle or unknown queue and +Inf for rho >= 1, where the queue never settles.
func Relaxation(rho float64, cores int, service float64) float64 {
	if !(rho > 0) || !(service > 0) || cores <= 0 {
		return 0
	}
	if rho >= 1 {
		return math.Inf(1)
	}
	d := 1 - math.Sqrt(rho)
	return service / (float64(cores) * d * d)
}
