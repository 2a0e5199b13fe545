#!/usr/bin/env bash
# Fails on an #include that points up a layer of recon/ (issue #18, point 5; docs/architecture.md).
# Each folder of recon/ may include only the folders listed for it below (and itself). Includes
# that break the order today are listed as known exceptions, file by file, each with the step of
# the architecture work that removes it; a new one fails the check, and so does an exception that
# no longer occurs (so the list only shrinks).
#
#   scripts/check-layers.sh            # from anywhere; exit 0 when clean, 1 with the offenders
set -euo pipefail
cd "$(dirname "$0")/.."

# folder: the folders it may include (besides itself)
declare -A allowed=(
  [core]=""
  [geometry]="core"
  [data]="core geometry"
  [job]="core"
  [device]="core job"
  [variant]="core geometry data job"
  [operator]="core geometry data job device variant"
  [projector]="core geometry data job device variant operator"
  [fdk]="core geometry data job device variant operator"
  [iterative]="core geometry data job device variant operator projector fdk"
  [phantom]="core geometry data job"
  [metrics]="core geometry data job"
  [preprocess]="core geometry data job"
  [io]="core geometry data job"
  [qa]="core geometry data job device variant operator projector fdk iterative phantom metrics preprocess io"
  [pet]="core geometry data job device variant operator projector fdk iterative phantom metrics io"
  [scale]="core geometry data job device variant operator projector fdk iterative io"
  [mpi]="core scale"
  [catalog]="core geometry data job device variant operator projector fdk iterative phantom metrics preprocess io qa pet scale"
  [cluster]="core geometry data job device variant operator projector fdk iterative phantom metrics preprocess io qa pet scale catalog"
)

# "file -> included folder": includes that point up today, to be removed by the step named. Empty
# since the folders step of issue #18 (ProjectionStack to data/, Sha256 and the geometry files to
# io/, the fused SIRT to iterative/cuda/).
known=()

status=0
declare -A seen=()
while IFS= read -r -d '' file; do
  folder=$(echo "$file" | cut -d/ -f2)
  [ -n "${allowed[$folder]+x}" ] || continue
  while IFS= read -r target; do
    [ "$target" = "$folder" ] && continue
    case " ${allowed[$folder]} " in *" $target "*) continue ;; esac
    key="$file -> $target"
    if printf '%s\n' "${known[@]}" | sed 's/ *#.*//; s/ *$//' | grep -qxF "$key"; then
      seen[$key]=1
      continue
    fi
    echo "check-layers: $file includes recon/$target/, above its layer ($folder may include: ${allowed[$folder]:-nothing})"
    status=1
  done < <(grep -oE '^#include "recon/[a-z_]+/' "$file" | sed 's|#include "recon/||; s|/$||' | sort -u)
done < <(find recon -path recon/io/dicom -prune -o \( -name '*.h' -o -name '*.cpp' -o -name '*.cu' -o -name '*.cuh' \) -print0)

for entry in "${known[@]+"${known[@]}"}"; do
  key=$(echo "$entry" | sed 's/ *#.*//; s/ *$//')
  if [ -z "${seen[$key]+x}" ]; then
    echo "check-layers: the known exception '$key' no longer occurs: remove it from scripts/check-layers.sh"
    status=1
  fi
done
[ "$status" = 0 ] && echo "check-layers: no include points up a layer (${#known[@]} known exceptions)"
exit "$status"
