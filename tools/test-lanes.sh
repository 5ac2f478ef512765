# make test's steps that run a suite as the cluster user (its lanes, the
# tiny bench, the sanitizer reports), sourced by tools/run-tests and by
# tools/check-test-lanes, which runs them against a hostile cluster user.
# They use run-tests' variables: stage, PG_CONFIGS, tap_opts, and lane_dir,
# the lane a suite runs in: its staged suite, its counts file and its list
# of failed suites (lane 1: the stage's own).

# run_tap SUITE FILE...: TAP files as the cluster user, in the lane's
# staged suite.
run_tap() {
	local suite=$1
	shift
	log "running $suite as the cluster user"
	if ! run_in_suite "$lane_dir/suite" "${PG_CONFIGS[0]}" perl tools/run-tap --suite "$suite" \
		--counts "$lane_dir/counts.tsv" "${tap_opts[@]}" "$@"; then
		echo "$suite" >>"$lane_dir/failed-suites"
		log "$suite failed; logs are in $(suite_log_dir "$lane_dir/suite" "${PG_CONFIGS[0]}")"
	fi
}
# stage_lane_suite DIR: a lane's suite and counts file in DIR, given to
# the lane's cluster user.
stage_lane_suite() {
	local dir=$1
	mkdir -p "$dir"
	[ "$dir" = "$stage" ] || cp "$stage/servers.list" "$dir/servers.list"
	stage_suite "$dir"
	touch "$dir/counts.tsv"
	give_to_cluster_user "$dir/counts.tsv"
}
# stage_lane DIR: a lane's suite, counts file, scratch filesystems and
# storage kinds in DIR, given to the lane's cluster user.
stage_lane() {
	local dir=$1
	stage_lane_suite "$dir"
	"$UP_TOOLS/scratch-fs" up "$dir/fs"
	# a 1 ms device for t/024 (taken down with the scratch filesystems)
	"$UP_TOOLS/storage" up "$dir/fs/storage" disk latency:1
}
# t/008 and t/018 check make bench's driver on what the tiny profile
# leaves: run_tiny_bench runs it on the servers just installed, into the
# lane's suite.
run_tiny_bench() {
	# with the kernel's profile of every cell where perf can record (root)
	local bench_perf=1
	is_root || bench_perf="make test runs as $(id -un), and PERF=1 needs root"
	log "running the tiny bench profile for t/008 and t/018 (log: $lane_dir/suite/bench.log)"
	mkdir -p "$lane_dir/suite/bench-results"
	if ! URINGPROBE_PROFILE=tiny URINGPROBE_RESULTS="$lane_dir/suite/bench-results" \
		URINGPROBE_PERF=$([ "$bench_perf" = 1 ] && echo 1) \
		URINGPROBE_SERVERS_INSTALLED="$stage/servers.list" \
		"$UP_TOOLS/run-bench" >"$lane_dir/suite/bench.log" 2>&1; then
		tail -n 30 "$lane_dir/suite/bench.log" >&2
		log "the tiny bench failed (log: $lane_dir/suite/bench.log): t/008 will say what it left"
		echo "tiny-bench" >>"$lane_dir/failed-suites"
	fi
	give_to_cluster_user "$lane_dir/suite/bench-results" "$lane_dir/suite/bench.log"
	export URINGPROBE_BENCH_RESULTS=$lane_dir/suite/bench-results URINGPROBE_BENCH_LOG=$lane_dir/suite/bench.log \
		URINGPROBE_BENCH_PERF=$bench_perf
}
# sanitizer_reports DIR: every sanitizer report in DIR with its first 40
# lines; returns 1 when there is any.
sanitizer_reports() {
	local reports r
	reports=$(find "$1" -type f)
	[ -n "$reports" ] || return 0
	for r in $reports; do
		log "sanitizer report $r:"
		head -n 40 "$r" >&2
	done
	return 1
}
