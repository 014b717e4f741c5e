# Sourced by the bench scripts. run CMD…: the median wall time in ms over $runs runs
# (after one warm-up) and the peak RSS in MB, of a whole process each run; $out is the
# folder for /usr/bin/time's output.
run() {
  local ts=() peak=0 t0 t1 m
  "$@" >/dev/null 2>&1 || true
  for _ in $(seq "$runs"); do
    t0=$(date +%s%N)
    /usr/bin/time -f "%M" -o "$out/rss" "$@" >/dev/null 2>&1 || true
    t1=$(date +%s%N)
    ts+=($(( (t1 - t0) / 1000 )))
    m=$(tail -1 "$out/rss")
    (( m > peak )) && peak=$m
  done
  printf '%s\n' "${ts[@]}" | sort -n | awk -v p="$peak" '{a[NR]=$1} END {printf "%.1f %.1f\n", a[int((NR+1)/2)]/1000, p/1024}'
}
