#!/bin/bash
# Plans the sweep (writing its manifest, so that a mistake in the command line is found
# before any task is queued), submits the array, and the merge after it, which runs however
# the tasks end (afterany) and checks for itself that every item is there.
#
#   ./submit.sh          the whole array
#   ./submit.sh 1,3      only array tasks 1 and 3 again (as the merge names them), then the merge
#
# Run from this directory.
set -euo pipefail
source "${SWEEP_ENV:-./sweep.env}"
shardsim sweep "${ARGS[@]}" -o "$OUT" --plan
if [[ $# -gt 0 ]]; then
	array=$(sbatch --parsable --array="$1" sweep.sbatch)
else
	array=$(sbatch --parsable sweep.sbatch)
fi
sbatch --dependency=afterany:"${array%%;*}" merge.sbatch
