#!/bin/bash
# Runs the sweep Job, waits until it has completed or failed (kubectl wait on one
# condition alone would wait its whole timeout on the other), then runs the merge and
# prints its log. Run from this directory; KUBECTL=... to use another client.
set -euo pipefail
k=${KUBECTL:-kubectl}
$k apply -f volume.yaml -f sweep-job.yaml
deadline=$((SECONDS + ${TIMEOUT_S:-86400}))
while :; do
	state=$($k get job/shardsim-sweep -o jsonpath='{.status.conditions[?(@.status=="True")].type}')
	case " $state " in
	*" Complete "*) break ;;
	*" Failed "*)
		echo "shardsim-sweep failed; failed indexes: $($k get job/shardsim-sweep -o jsonpath='{.status.failedIndexes}')" >&2
		break ;;
	esac
	if ((SECONDS > deadline)); then
		echo "shardsim-sweep neither completed nor failed in time" >&2
		exit 1
	fi
	sleep "${POLL_S:-10}"
done
$k delete job/shardsim-merge --ignore-not-found
$k apply -f merge-job.yaml
until state=$($k get job/shardsim-merge -o jsonpath='{.status.conditions[?(@.status=="True")].type}') && [[ $state == *Complete* || $state == *Failed* ]]; do
	sleep "${POLL_S:-5}"
done
$k logs job/shardsim-merge
[[ $state == *Complete* ]]
