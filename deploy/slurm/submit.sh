#!/bin/bash
# Plans the sweep (writing its manifest, so that a mistake in the command line is found
# before any task is queued), submits the array, and the merge after it.
# Run from this directory: ./submit.sh
set -euo pipefail
source "${SWEEP_ENV:-./sweep.env}"
shardsim sweep "${ARGS[@]}" -o "$OUT" --plan
array=$(sbatch --parsable sweep.sbatch)
sbatch --dependency=afterok:"${array%%;*}" merge.sbatch
