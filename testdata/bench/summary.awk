# Summarizes `go test -bench` output of the sim package (make bench): the median ns/op of
# each benchmark over its runs, the engine's ratios to the hand-written minimal loop
# measured in the same run, and the targets of issues 9 and 22. A benchmark run on more
# than one core (-cpu 2 gives names ending in -2) is kept apart as "NAME (2 cores)".
#
#   go test -run '^$' -bench . -count 5 -cpu 1 ./sim/ | awk -f testdata/bench/summary.awk

function median(list,    n, a, i, j, t) {
	n = split(list, a, " ")
	for (i = 2; i <= n; i++) {
		t = a[i]
		for (j = i - 1; j >= 1 && a[j] + 0 > t + 0; j--) a[j + 1] = a[j]
		a[j + 1] = t
	}
	return n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2
}

{ print }

/^Benchmark/ && $4 == "ns/op" {
	name = $1
	if (match(name, /-[0-9]+$/)) {
		cores = substr(name, RSTART + 1)
		name = substr(name, 1, RSTART - 1)
		if (cores + 0 > 1) name = name " (" cores " cores)"
	}
	if (!(name in runs)) order[++count] = name
	runs[name] = runs[name] " " $3
}

END {
	if (count == 0) exit
	printf "\nmedians over the runs above:\n"
	for (i = 1; i <= count; i++) {
		m[order[i]] = median(runs[order[i]])
		printf "  %-48s %8.1f ns/op  %6.2f million/s\n", order[i], m[order[i]], 1000 / m[order[i]]
	}
	for (i = 1; i <= count; i++) {
		one = order[i]
		sub(/ \([0-9]+ cores\)$/, "", one)
		if (one != order[i] && m[one] != "")
			printf "  %-48s speed-up %.2fx over one core\n", order[i], m[one] / m[order[i]]
	}
	base = m["BenchmarkMinimalLoop"]
	zipf = m["BenchmarkPointRequests/nodes=12/keys=zipf"]
	unif = m["BenchmarkPointRequests/nodes=12/keys=uniform"]
	scan = m["BenchmarkScans/partitions=120"]
	if (base == "" || zipf == "") exit
	printf "\nperformance targets (README, Performance):\n"
	printf "  zipf point requests: %.2f million/s (want >= 5): %s\n", 1000 / zipf, ((1000 / zipf >= 5) ? "met" : "NOT MET")
	printf "  zipf / minimal loop: %.2f (want <= 2): %s\n", zipf / base, ((zipf / base <= 2) ? "met" : "NOT MET")
	if (unif != "") printf "  uniform / minimal loop: %.2f (want <= 1): %s\n", unif / base, ((unif / base <= 1) ? "met" : "NOT MET")
	unif2 = m["BenchmarkPointRequests/nodes=12/keys=uniform (2 cores)"]
	if (unif2 != "") printf "  uniform on 2 cores / minimal loop: %.2f (want <= 1): %s\n", unif2 / base, ((unif2 / base <= 1) ? "met" : "NOT MET")
	if (scan != "") printf "  scans: %.2f million subrequests/s (want >= 2): %s\n", 1000 / scan, ((1000 / scan >= 2) ? "met" : "NOT MET")
}
