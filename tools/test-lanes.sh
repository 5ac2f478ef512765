# make test's steps that run a suite as the cluster user (its lanes, the
# tiny bench, the sanitizer reports), sourced by tools/run-tests and by
# tools/check-test-lanes, which runs them against a hostile cluster user.
# They use run-tests' variables: stage, PG_CONFIGS, tap_opts, and lane_dir,
# the lane a suite runs in: its staged suite, its counts file and its list
# of failed suites (lane 1: the stage's own).
#
# Root keeps its own files (the lane's counts, the tiny bench's log and
# results) in directories only root writes, the cluster user reading them
# where its tests need to; what root takes from the cluster user (a suite's
# counts, the sanitizer reports) it reads with read_user_file, never by a
# redirect, cat, tail or head through a path that user could swap
# (docs/testing.md, "Where root acts on what another user can write").

# user_file PATH: a new empty file for the cluster user to write, at PATH
# in a directory of root's (the name stays root's: it cannot be swapped).
user_file() {
	rm -f "$1"
	: >"$1"
	give_to_cluster_user "$1"
}
# take_counts SUITE FILE TO: the lines suite SUITE wrote in FILE, which the
# cluster user can write (read_user_file: no link followed, at most 16 MB),
# appended to root's counts file TO; only SUITE's own lines of the kinds
# tools/run-tap writes are taken. Returns non-zero when FILE was refused.
take_counts() {
	local suite=$1 text
	text=$(read_user_file "$2" $((16 << 20))) || return 1
	[ -n "$text" ] || return 0
	awk -F'\t' -v s="$suite" '$2 == s && ($1 == "counts" || $1 == "skip" || $1 == "fail" || $1 == "test")' \
		<<<"$text" >>"$3"
}
# run_tap SUITE FILE...: TAP files as the cluster user, in the lane's
# staged suite; their counts taken into the lane's.
run_tap() {
	local suite=$1 user_counts=$lane_dir/user-counts.tsv rc=0
	shift
	user_file "$user_counts"
	log "running $suite as the cluster user"
	run_in_suite "$lane_dir/suite" "${PG_CONFIGS[0]}" perl tools/run-tap --suite "$suite" \
		--counts "$user_counts" "${tap_opts[@]}" "$@" || rc=$?
	if ! take_counts "$suite" "$user_counts" "$lane_dir/counts.tsv"; then
		printf 'counts\t%s\t0\t1\t0\n' "$suite" >>"$lane_dir/counts.tsv"
		rc=1
	fi
	if [ $rc -ne 0 ]; then
		echo "$suite" >>"$lane_dir/failed-suites"
		log "$suite failed; logs are in $(suite_log_dir "$lane_dir/suite" "${PG_CONFIGS[0]}")"
	fi
}
# stage_lane_suite DIR: a lane in DIR, a directory of root's: its suite,
# given to the lane's cluster user, and root's counts file.
stage_lane_suite() {
	local dir=$1
	mkdir -p -m 755 "$dir"
	[ "$dir" = "$stage" ] || cp "$stage/servers.list" "$dir/servers.list"
	stage_suite "$dir"
	touch "$dir/counts.tsv"
}
# stage_lane DIR: a lane's suite, counts file, scratch filesystems and
# storage kinds in DIR, given to the lane's cluster user.
stage_lane() {
	local dir=$1
	stage_lane_suite "$dir"
	# the ports its clusters reserve, in a directory of the lane's user
	# alone: another user's reservation file is one it cannot open, and
	# root reads no pid back from a directory another user can write
	mkdir -m 700 "$dir/portlock"
	give_to_cluster_user "$dir/portlock"
	export PG_TEST_PORT_DIR=$dir/portlock
	"$UP_TOOLS/scratch-fs" up "$dir/fs"
	# a 1 ms device for t/024 (taken down with the scratch filesystems)
	"$UP_TOOLS/storage" up "$dir/fs/storage" disk latency:1
}
# t/008 and t/018 check make bench's driver on what the tiny profile
# leaves: run_tiny_bench runs it on the servers just installed. Its log
# and results are root's, in bench/ of the lane (not in the suite, which
# the cluster user owns): that user reads them there and cannot change
# them.
run_tiny_bench() {
	# with the kernel's profile of every cell where perf can record (root)
	local bench_perf=1 out=$lane_dir/bench
	is_root || bench_perf="make test runs as $(id -un), and PERF=1 needs root"
	rm -rf "$out"
	mkdir -m 755 "$out"
	log "running the tiny bench profile for t/008 and t/018 (log: $out/bench.log)"
	# (its clusters reserve their ports where make bench's always do, in
	# its own stage, not in the lane's directory)
	if ! env -u PG_TEST_PORT_DIR URINGPROBE_PROFILE=tiny URINGPROBE_RESULTS="$out/results" \
		URINGPROBE_PERF=$([ "$bench_perf" = 1 ] && echo 1) \
		URINGPROBE_SERVERS_INSTALLED="$stage/servers.list" \
		"$UP_TOOLS/run-bench" >"$out/bench.log" 2>&1; then
		tail -n 30 "$out/bench.log" >&2
		log "the tiny bench failed (log: $out/bench.log): t/008 will say what it left"
		echo "tiny-bench" >>"$lane_dir/failed-suites"
	fi
	# readable by the cluster user whatever root's umask; written by root alone
	chmod -R a+rX,go-w "$out"
	export URINGPROBE_BENCH_RESULTS=$out/results URINGPROBE_BENCH_LOG=$out/bench.log \
		URINGPROBE_BENCH_PERF=$bench_perf
}
# sanitizer_reports DIR: every name in DIR, a directory the cluster user
# writes the sanitizer reports into, with its first 40 lines (read_user_file:
# a link, a fifo or a directory is named as not taken); returns 1 when
# there is any.
sanitizer_reports() {
	local name found=0
	while IFS= read -r -d '' name; do
		found=1
		log "sanitizer report ${name@Q}:"
		{ read_user_file "$1/$name" $((1 << 20)) || true; } | head -n 40 >&2 || true
	done < <(find "$1" -mindepth 1 -maxdepth 1 -printf '%f\0')
	return $((found))
}
