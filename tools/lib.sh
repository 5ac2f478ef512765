# Shared shell helpers for the server builds, test and bench drivers.
# Sourced, never executed.

set -euo pipefail

# Started from `make test` or `make bench`, the tools inherit the outer
# make's MAKELEVEL and flags; PostgreSQL's build then takes itself for a
# sub-make and skips generating its headers. Every make here is top-level.
unset MAKELEVEL MAKEFLAGS MFLAGS MAKEOVERRIDES
# make's command-line variables are exported as well, and PROFILE (make
# bench PROFILE=..., already mapped to URINGPROBE_PROFILE) means linker
# flags to PostgreSQL's and PGXS's builds.
unset PROFILE

UP_TOOLS=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
UP_ROOT=$(dirname "$UP_TOOLS")
# Builds are cached outside the work tree. As root the default is under
# /var/cache, because the unprivileged user that runs the clusters must be
# able to execute the servers, and root's home is private.
if [ -n "${URINGPROBE_CACHE:-}" ]; then
	UP_CACHE=$URINGPROBE_CACHE
elif [ "$(id -u)" -eq 0 ]; then
	UP_CACHE=/var/cache/uringprobe
else
	UP_CACHE=${XDG_CACHE_HOME:-$HOME/.cache}/uringprobe
fi
mkdir -p "$UP_CACHE"
# The suite whose source packages carry PostgreSQL 18 and a liburing >= 2.7.
UP_NEWER_SUITE=${URINGPROBE_NEWER_SUITE:-unstable}
UP_JOBS=${URINGPROBE_JOBS:-$(($(nproc) + 1))}

log() { printf '[uringprobe %s] %s\n' "$(date +%H:%M:%S)" "$*" >&2; }
# die MESSAGE [HINT...]: the error (kept in UP_ERROR for an EXIT trap) and
# its hints, then exit 1.
die() {
	UP_ERROR=$1
	printf '[uringprobe] error: %s\n' "$1" >&2
	shift
	for hint in "$@"; do printf '[uringprobe]   %s\n' "$hint" >&2; done
	exit 1
}

is_root() { [ "$(id -u)" -eq 0 ]; }

# give_to_cluster_user PATH...: as root, the cluster user (created if it
# does not exist yet) owns PATH and everything below it; otherwise nothing.
give_to_cluster_user() {
	is_root || return 0
	URINGPROBE_LIMITS_LOGGED=1 "$UP_TOOLS/as-cluster-user" true
	chown -R "${URINGPROBE_CLUSTER_USER:-uringprobe}:" "$@"
}

# NAME=value lines of the exported variables whose names match one of the
# glob patterns $@, sorted; URINGPROBE_PROGRESS (a script's progress state)
# left out.
uringprobe_env() {
	local v p
	for v in $(compgen -e | sort); do
		[ "$v" != URINGPROBE_PROGRESS ] || continue
		for p in "$@"; do
			# shellcheck disable=SC2053
			if [[ $v == $p ]]; then
				printf '%s=%s\n' "$v" "${!v}"
				break
			fi
		done
	done
}

# This host as run.tsv describes it (format 2: host, commit, liburing and
# storage, which bench/results-db keys a run by and describes its host
# with; a directory without them is of format 1): "key<TAB>value" lines.
host_tsv_lines() {
	printf 'format\t2\n'
	printf 'host\t%s\n' "$(hostname -f 2>/dev/null || hostname)"
	printf 'commit\t%s\n' "$(git -C "$UP_ROOT" rev-parse --short=12 HEAD 2>/dev/null || echo unknown)"
	printf 'liburing\t%s\n' "$(dpkg-query -W -f '${Version}' liburing2 2>/dev/null || echo unknown)"
	printf 'storage\t%s\n' "$(findmnt -n -o SOURCE,FSTYPE --target "$UP_ROOT" 2>/dev/null | tr -s ' ' || echo unknown)"
	printf 'machine\t%s, kernel %s\n' "$(host_machine)" "$(uname -r)"
	printf 'cpu\t%s\n' "$(host_cpu)"
	printf 'cpus\t%s\nkernel\t%s\n' "$(nproc)" "$(uname -r)"
}
# the CPU's model name
host_cpu() { awk -F': ' '/^model name/ { print $2; exit }' /proc/cpuinfo; }
# "N CPUs, M GiB RAM"
host_machine() { echo "$(nproc) CPUs, $(awk '/MemTotal/ { printf "%.0f GiB", $2 / 1048576 }' /proc/meminfo) RAM"; }

# reserve_run_name ROOT: a run's name in stamp, the time it started with
# -2, -3, ... where another run started in the same second; its directory
# ROOT/.STAMP.incomplete is made now (mkdir is atomic), so two runs never
# write or replace each other's.
reserve_run_name() {
	local base n=1
	stamp=$(date +%Y%m%d-%H%M%S)
	base=$stamp
	mkdir -p "$1"
	until mkdir "$1/.$stamp.incomplete" 2>/dev/null; do
		[ -e "$1/.$stamp.incomplete" ] || die "cannot make a directory in $1"
		n=$((n + 1))
		stamp=$base-$n
	done
}

# Run a long command with its output in a log file; print a heartbeat so a
# long build shows progress, and the log's tail if it fails.
run_logged() {
	local what=$1 logfile=$2
	shift 2
	log "$what (log: $logfile)"
	local start=$SECONDS
	"$@" >"$logfile" 2>&1 &
	local pid=$!
	local next=$((start + 30))
	while kill -0 "$pid" 2>/dev/null; do
		sleep 1
		if [ "$SECONDS" -ge "$next" ] && kill -0 "$pid" 2>/dev/null; then
			log "  ... $what: $((SECONDS - start))s, $(wc -l <"$logfile") log lines"
			next=$((next + 30))
		fi
	done
	if ! wait "$pid"; then
		tail -n 40 "$logfile" >&2
		die "$what failed after $((SECONDS - start))s" "full log: $logfile"
	fi
	log "$what done in $((SECONDS - start))s"
}

# Packages from the machine's own Debian suite, installed when missing.
ensure_packages() {
	local missing=()
	local p
	for p in "$@"; do
		dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing+=("$p")
	done
	[ ${#missing[@]} -eq 0 ] && return 0
	is_root || die "missing Debian packages: ${missing[*]}" \
		"install them as root: apt-get install ${missing[*]}"
	log "installing Debian packages: ${missing[*]}"
	# (another apt at work on the machine is waited for, not taken for a
	# failure)
	local apt_get=(apt-get -o DPkg::Lock::Timeout=600)
	if ! DEBIAN_FRONTEND=noninteractive "${apt_get[@]}" install -y --no-install-recommends "${missing[@]}" >"$UP_CACHE/apt-install.log" 2>&1; then
		log "package install failed; refreshing the package lists once and retrying"
		"${apt_get[@]}" update >>"$UP_CACHE/apt-install.log" 2>&1 ||
			die "apt-get update failed: no access to the package archive?" "log: $UP_CACHE/apt-install.log"
		DEBIAN_FRONTEND=noninteractive "${apt_get[@]}" install -y --no-install-recommends "${missing[@]}" >>"$UP_CACHE/apt-install.log" 2>&1 ||
			{ tail -n 20 "$UP_CACHE/apt-install.log" >&2; die "could not install: ${missing[*]}" "log: $UP_CACHE/apt-install.log"; }
	fi
}

# The archive URIs of the machine's own apt sources (one-line and deb822
# forms, comments left out), in their order.
apt_source_uris() {
	cat /etc/apt/sources.list /etc/apt/sources.list.d/*.list 2>/dev/null |
		awk '$1 == "deb" { for (i = 2; i <= NF; i++) if ($i ~ /^[a-z]+:\/\//) { print $i; break } }'
	cat /etc/apt/sources.list.d/*.sources 2>/dev/null |
		awk 'tolower($1) == "uris:" { for (i = 2; i <= NF; i++) print $i }'
}
# The archive URI the machine's own apt sources use for Debian (not the
# security archive), so that the newer suite comes from the same mirror.
debian_mirror() {
	local uri
	uri=$(apt_source_uris | grep -v -e security -e '^$' | grep -E '/debian/?$' | head -n 1) || true
	[ -n "$uri" ] || die "no Debian archive found in /etc/apt/sources.list or /etc/apt/sources.list.d" \
		"add the machine's Debian mirror to its apt sources, or set URINGPROBE_DEBIAN_MIRROR"
	echo "${uri%/}"
}

# apt-get/apt-cache with a private configuration holding only the newer
# suite's deb-src entry; the machine's own apt configuration is untouched.
newer_apt_dir() { echo "$UP_CACHE/apt-$UP_NEWER_SUITE"; }
newer_apt_opts() {
	local d
	d=$(newer_apt_dir)
	echo "-o Dir::Etc::SourceList=$d/sources.list -o Dir::Etc::SourceParts=$d/sources.list.d" \
		"-o Dir::State::Lists=$d/lists -o Dir::Cache=$d/cache -o APT::Sandbox::User=root"
}
newer_apt_update() {
	local d mirror
	d=$(newer_apt_dir)
	mirror=${URINGPROBE_DEBIAN_MIRROR:-$(debian_mirror)}
	mkdir -p "$d/lists/partial" "$d/cache/archives/partial" "$d/sources.list.d"
	echo "deb-src [signed-by=/usr/share/keyrings/debian-archive-keyring.gpg] $mirror $UP_NEWER_SUITE main" >"$d/sources.list"
	# Refresh at most once a day.
	if [ -z "$(find "$d/lists" -maxdepth 1 -name '*Sources*' -mtime -1 2>/dev/null)" ]; then
		log "reading source package lists of Debian $UP_NEWER_SUITE"
		# shellcheck disable=SC2046
		apt-get $(newer_apt_opts) update >"$d/update.log" 2>&1 ||
			{ tail -n 10 "$d/update.log" >&2; die "cannot read the source lists of Debian $UP_NEWER_SUITE" \
				"no access to the package archive, or the suite does not exist (URINGPROBE_NEWER_SUITE)" "log: $d/update.log"; }
	fi
}
newer_source_version() {
	local v
	# shellcheck disable=SC2046
	v=$(apt-cache $(newer_apt_opts) showsrc "$1" 2>/dev/null | awk '/^Version:/ { print $2 }' | sort -V | tail -n 1)
	[ -n "$v" ] || die "Debian $UP_NEWER_SUITE carries no source package '$1'" \
		"choose a suite that does with URINGPROBE_NEWER_SUITE (e.g. testing, unstable)"
	echo "$v"
}
# Unpack source package $1 at version $2 into $3 (once; reused after), with
# the package's patches applied except those named in $4 (space-separated).
newer_source_unpack() {
	local pkg=$1 version=$2 dest=$3 skip=" ${4:-} "
	[ -f "$dest/.unpacked" ] && return 0
	rm -rf "$dest" "$dest.tmp"
	mkdir -p "$dest.tmp"
	log "downloading Debian source package $pkg $version from $UP_NEWER_SUITE"
	# shellcheck disable=SC2046
	(cd "$dest.tmp" && apt-get $(newer_apt_opts) source --download-only "$pkg=$version") >"$dest.tmp.log" 2>&1 ||
		{ tail -n 10 "$dest.tmp.log" >&2; die "could not download source package $pkg $version" "log: $dest.tmp.log"; }
	(cd "$dest.tmp" && dpkg-source --no-check --skip-patches -x ./*.dsc src) >>"$dest.tmp.log" 2>&1 ||
		{ tail -n 10 "$dest.tmp.log" >&2; die "could not unpack source package $pkg $version" "log: $dest.tmp.log"; }
	local series=$dest.tmp/src/debian/patches/series patch
	if [ -f "$series" ]; then
		while read -r patch _; do
			case "$patch" in "" | \#*) continue ;; esac
			if [[ "$skip" == *" $patch "* ]]; then
				echo "skipping patch $patch" >>"$dest.tmp.log"
				continue
			fi
			(cd "$dest.tmp/src" && patch -p1 --batch --forward <"debian/patches/$patch") >>"$dest.tmp.log" 2>&1 ||
				{ tail -n 10 "$dest.tmp.log" >&2; die "Debian patch $patch does not apply to $pkg $version" "log: $dest.tmp.log"; }
		done <"$series"
	fi
	mv "$dest.tmp/src" "$dest"
	rm -rf "$dest.tmp"
	touch "$dest/.unpacked"
}

# A root-only check's results as Uringprobe::Counts reads them:
# checks_begin SUITE FILE, then check NAME CONDITION (CONDITION eval'd) and
# skip N WHY (N checks not tried), then checks_end: the "counts" line, a
# "test" line per check and a "skip" line per part not tried; 0 when none
# failed.
checks_begin() { check_suite=$1 check_file=$2 passed=0 failed=0 skipped=0 tests= skips=; }
check() {
	local result=ok
	if eval "$2"; then
		passed=$((passed + 1))
		echo "ok - $1"
	else
		result=fail failed=$((failed + 1))
		echo "not ok - $1"
	fi
	tests+=$(printf 'test\t%s\t%s\t%s\t%s' "$check_suite" "$check_file" "$result" "$1")$'\n'
}
skip() {
	skipped=$((skipped + $1))
	skips+=$(printf 'skip\t%s\t%s\t%s' "$check_suite" "$check_file" "$2")$'\n'
}
checks_end() {
	printf 'counts\t%s\t%d\t%d\t%d\n' "$check_suite" "$passed" "$failed" "$skipped"
	printf '%s' "$tests" "$skips"
	[ "$failed" -eq 0 ]
}

# copy_source_tree DIR: the work tree's source files into DIR, as a source
# package holds them: git's, with those not yet added; from a tree without
# git, all but what builds and runs leave.
copy_source_tree() {
	if git -C "$UP_ROOT" rev-parse --git-dir >/dev/null 2>&1; then
		(cd "$UP_ROOT" && git ls-files -co --exclude-standard -z | xargs -0 cp --parents -t "$1")
	else
		(cd "$UP_ROOT" && tar -c --exclude=./results --exclude=./log --exclude=./tmp_check --exclude='./build*' \
			--exclude='*.o' --exclude='*.so' --exclude=./uringprobe-cli --exclude='./uringprobe--*.sql' .) | tar -x -C "$1"
	fi
}

short_hash() { printf '%s' "$*" | sha256sum | cut -c1-10; }

# Compilers through ccache (Debian's), its cache beside the server builds:
# every run compiles the same sources (the module for each server, the
# meson check, the sanitizer build) in a new stage directory, so the
# directory is left out of the hash (debug info may then name an older
# stage). UP_CXX is the compiler command for the builds.
use_compiler_cache() {
	! is_root || ensure_packages ccache
	UP_CXX=g++
	if command -v ccache >/dev/null; then
		# paths below the work tree hashed relative to it: a clone elsewhere
		# hits the same cache
		export CCACHE_DIR=$UP_CACHE/ccache CCACHE_NOHASHDIR=true CCACHE_BASEDIR=$UP_ROOT
		UP_CXX="ccache g++"
	fi
	export UP_CXX
}

# Build the extension and CLI from this work tree for the server of
# pg_config $2, in a private copy under $3 (the work tree stays clean), and
# install them into that server.
install_extension() {
	local name=$1 pg_config=$2 dir=$3
	rm -rf "$dir"
	mkdir -p "$dir"
	cp -a "$UP_ROOT/Makefile" "$UP_ROOT/uringprobe.control" "$UP_ROOT/src" "$dir/"
	# objects of a build in the work tree may be for another server
	find "$dir/src" -name '*.o' -delete
	run_logged "build uringprobe for $name" "$dir.build.log" make -C "$dir" -j"$UP_JOBS" PG_CONFIG="$pg_config" \
		CXX="${UP_CXX:-g++}"
	if grep -E 'warning:' "$dir.build.log" >&2; then
		die "the build for $name emitted warnings" "log: $dir.build.log"
	fi
	if is_root || [ -w "$("$pg_config" --pkglibdir)" ]; then
		run_logged "install uringprobe into $name" "$dir.install.log" make -C "$dir" install PG_CONFIG="$pg_config"
	else
		die "cannot install into $("$pg_config" --pkglibdir) as $(id -un)" \
			"run as root, or use a PG_CONFIG whose install directories you can write"
	fi
}

# The contrib modules the reads benchmark needs (pg_buffercache, to evict a
# relation from shared buffers; pg_prewarm, a read stream of its own) into
# server $1 (pg_config $2), built with PGXS from its source tree $3 where
# the server lacks them (a server built here installs no contrib); a
# server without them and without a source is logged, and the benchmark
# says what it could not measure.
install_contrib() {
	local name=$1 pg_config=$2 src=$3 dir=$4 m
	for m in pg_buffercache pg_prewarm; do
		[ ! -f "$("$pg_config" --pkglibdir)/$m.so" ] || continue
		if [ -z "$src" ] || [ ! -d "$src/contrib/$m" ]; then
			log "$name has no $m and no source to build it from"
			continue
		fi
		rm -rf "$dir/$m"
		mkdir -p "$dir"
		cp -a "$src/contrib/$m" "$dir/$m"
		run_logged "build $m for $name" "$dir/$m.build.log" \
			make -C "$dir/$m" -j"$UP_JOBS" USE_PGXS=1 PG_CONFIG="$pg_config" install
	done
}

# Read the server list written by setup-servers into NAMES, PG_CONFIGS,
# SOURCES (the source tree a server was built from; empty if not known) and
# ON_REQUEST (1: measured and tested only where named).
read_servers() {
	NAMES=()
	PG_CONFIGS=()
	SOURCES=()
	ON_REQUEST=()
	local name pgc src use
	while IFS=$'\t' read -r name pgc src use; do
		NAMES+=("$name")
		PG_CONFIGS+=("$pgc")
		SOURCES+=("$src")
		ON_REQUEST+=("$([ "$use" = on-request ] && echo 1 || echo 0)")
	done <"$1"
	[ ${#NAMES[@]} -gt 0 ] || die "no servers were set up"
}

# Remove directory $1 and everything in it, following no link and into
# no mount (rm -rf --one-file-system). A user still writing into a
# directory of its own in there can make a pass fail (not empty): a few
# passes, then non-zero, naming what is left.
remove_tree() {
	local i
	for i in 1 2 3 4 5; do
		rm -rf --one-file-system "$1" 2>/dev/null && return 0
		sleep 0.2
	done
	rm -rf --one-file-system "$1" && return 0
	log "could not remove $1: something there is still being written"
	return 1
}

# This run's stage directory, in $stage: on the way out its scratch
# filesystems are unmounted and it is removed, unless keep_stage=1 (set
# when something failed: the stage then holds the logs).
begin_stage() {
	stage=$(make_stage "$1")
	keep_stage=0
	trap end_stage EXIT
}
end_stage() {
	if ! "$UP_TOOLS/scratch-fs" down "$stage/fs"; then
		log "could not unmount the scratch filesystems in $stage/fs: $stage kept"
		keep_stage=1
	fi
	[ "$keep_stage" -eq 1 ] || remove_tree "$stage" || true
}

# A directory the cluster user owns, holding a copy of what the tests or
# benchmarks read (the work tree may sit where that user cannot read).
make_stage() {
	local stage
	stage=$(mktemp -d "${TMPDIR:-/tmp}/uringprobe-$1.XXXXXX")
	chmod 755 "$stage"
	echo "$stage"
}
stage_suite() {
	local stage=$1
	mkdir -p "$stage/suite"
	cp -a "$UP_ROOT/t" "$UP_ROOT/sql" "$UP_ROOT/expected" "$UP_ROOT/bench" "$UP_ROOT/test" "$stage/suite/"
	# the docs, the Makefile and the sources, for t/014's checks that they
	# agree with the code and of the code's layers and sizes; the
	# distribution's files, for t/029's and t/030's
	cp -a "$UP_ROOT/docs" "$UP_ROOT/README.md" "$UP_ROOT/Makefile" "$UP_ROOT/src" "$stage/suite/"
	cp -a "$UP_ROOT/META.json" "$UP_ROOT/uringprobe.control" "$UP_ROOT/meson.build" "$UP_ROOT/debian" "$stage/suite/"
	# the TAP modules and runner, make bench's driver for t/008, the server patches
	cp -a "$UP_ROOT/tools" "$UP_ROOT/patches" "$stage/suite/"
	cp "$stage/servers.list" "$stage/suite/servers.list"
	# where the benchmarks and the TAP modules write (results, their logs:
	# log/, or tmp_check/log/ before PostgreSQL 16), made before the suite
	# is given: root makes nothing in a directory the cluster user can
	# write
	# tmp/: the cluster user's TMPDIR (run_in_suite), so what a run ended
	# by a signal leaves there goes with the stage, not into /tmp
	mkdir -p "$stage/suite/results" "$stage/suite/log" "$stage/suite/tmp_check/log" "$stage/suite/tmp"
	give_to_cluster_user "$stage/suite"
}

# The major version of the server of pg_config $1.
pg_major() { "$1" --version | sed -E 's/^PostgreSQL ([0-9]+).*/\1/'; }

# Where the TAP modules of PostgreSQL $2 (its pg_config) write the logs of
# tests run in directory $1: log/ since PostgreSQL 16, tmp_check/log/
# before.
suite_log_dir() {
	if [ "$(pg_major "$2")" -ge 16 ]; then
		echo "$1/log"
	else
		echo "$1/tmp_check/log"
	fi
}

# Run a command in the staged suite $1 as the cluster user, with the server
# list (the suite's, or the file SUITE_SERVERS names), the scratch
# filesystems (fs/ beside the suite: tools/scratch-fs), the storage kinds
# (fs/storage: tools/storage) and the TAP modules
# (those of the first server, $2 = its pg_config).
run_in_suite() {
	local suite=$1 pg_config=$2 rc=0
	shift 2
	# exec: the command is this script's own child, so that on Ctrl-C the
	# script's trap runs only after the command has stopped its clusters
	(cd "$suite" && exec "$UP_TOOLS/as-cluster-user" env \
		TMPDIR="$suite/tmp" \
		URINGPROBE_SERVERS="${SUITE_SERVERS:-$suite/servers.list}" \
		URINGPROBE_SCRATCH_FS_LIST="$(dirname "$suite")/fs/filesystems.list" \
		URINGPROBE_STORAGE_LIST="$(dirname "$suite")/fs/storage/storage.list" \
		PERL5LIB="$suite/tools/perl:$("$pg_config" --pkglibdir)/pgxs/src/test/perl" \
		"$@") || rc=$?
	# the cluster user's limits were printed once: enough
	export URINGPROBE_LIMITS_LOGGED=1
	return $rc
}

# read_user_file PATH [MAX]: a file the cluster user controls, as root
# may read it (Uringprobe::UserFiles): from the deepest directory on PATH's
# way only root can write, every component opened without following a
# link, the file a regular one of one name, at most MAX bytes (default
# 1 MB; a longer one cut, said on stderr). None there: no output. Anything
# else (a link on the way, a fifo, a hard link): no output, a line on
# stderr naming it, exit status 3.
read_user_file() {
	perl -I"$UP_TOOLS/perl" -MUringprobe::UserFiles=read_user_file -e 'exit read_user_file(@ARGV)' "$@"
}

# root_only_dir DIR: dies unless DIR, and every directory on its way, is
# one only root can write (a world-writable one only if sticky, as /tmp):
# where root keeps its records (Uringprobe::UserFiles' split_trusted).
root_only_dir() {
	local why
	why=$(perl -I"$UP_TOOLS/perl" -MUringprobe::UserFiles=split_trusted -e '
		my ($dir, $rel) = split_trusted("$ARGV[0]/x");
		print "only $dir is, and $rel is not\n" if $rel ne "x";' "$1" 2>&1) || true
	[ -z "$why" ] || die "$1 is not a directory only root can write ($why)" \
		"root keeps its records where no other user can change them"
}

# proc_start_time PID: when process PID started (clock ticks since boot,
# /proc/PID/stat's 22nd field), empty if there is none: a pid and its
# start time name one process, never a later one given the same pid.
proc_start_time() {
	local s f
	[[ "$1" =~ ^[0-9]+$ ]] || return 0
	s=$(cat "/proc/$1/stat" 2>/dev/null) || return 0
	s=${s##*) }
	read -r -a f <<<"$s"
	echo "${f[19]}"
}
# stop_recorded PID START: ends the process root started and recorded as
# PID, started at START (TERM, then KILL after 5 s), if it still runs.
stop_recorded() {
	local pid=$1 start=$2 _
	[[ "$pid" =~ ^[0-9]+$ ]] && [[ "$start" =~ ^[0-9]+$ ]] || return 0
	[ "$(proc_start_time "$pid")" = "$start" ] || return 0
	kill "$pid" 2>/dev/null || return 0
	for _ in $(seq 50); do
		[ "$(proc_start_time "$pid")" = "$start" ] || return 0
		sleep 0.1
	done
	kill -KILL "$pid" 2>/dev/null || true
}

# sysctl_hold NAME VALUE: sets the sysctl NAME (kernel.io_uring_disabled)
# to VALUE for the whole host until sysctl_put_back, however this shell
# ends. Only make test-sysctl uses it (tools/with-sysctl): make test never
# changes the host.
#  - Its state (a lock and the value before) is kept in a directory only
#    root writes, /run/uringprobe, made 0700 when not there: one that is a
#    link, another user's, writable by others or reached through a
#    directory others can write is refused before anything is read or
#    written (Uringprobe::UserFiles' private_dir).
#  - One holder at a time: the lock, held until the value is back; a
#    second one waits for it.
#  - The value before is saved first; a guard process in a session of its
#    own (not killed with this shell's process group) puts it back as soon
#    as this shell is gone, SIGKILL included.
#  - A saved value found on start is one nothing could put back (the guard
#    killed too, by hand): it is put back before anything else. Values are
#    read back only as numbers: anything else is refused, naming the file.
# URINGPROBE_SYSCTL_DIR (default /proc/sys) and URINGPROBE_SYSCTL_LOCK_DIR
# (default /run/uringprobe) let the tests try this on plain files.
sysctl_hold() {
	sysctl_name=$1
	sysctl_file=${URINGPROBE_SYSCTL_DIR:-/proc/sys}/${1//.//}
	local dir=${URINGPROBE_SYSCTL_LOCK_DIR:-/run/uringprobe} why
	[ -w "$sysctl_file" ] || die "cannot write $sysctl_file: this needs root and a kernel that has $1"
	why=$(perl -I"$UP_TOOLS/perl" -MUringprobe::UserFiles=private_dir -e 'print private_dir($ARGV[0])' "$dir") ||
		why="$dir: cannot be checked"
	[ -z "$why" ] || die "sysctl_hold: $why: refused" \
		"the lock and saved value of $1 are kept where only $(id -un) can write: a directory of its own, 0700"
	sysctl_saved=$dir/uringprobe-$1.saved
	exec 9>"$dir/uringprobe-$1.lock"
	flock 9
	if [ -s "$sysctl_saved" ]; then
		sysctl_before=$(sysctl_number "$sysctl_saved")
		log "$1: putting back $sysctl_before, left by a run that could not"
		echo "$sysctl_before" >"$sysctl_file"
	fi
	sysctl_before=$(sysctl_number "$sysctl_file")
	echo "$sysctl_before" >"$sysctl_saved.new" && mv "$sysctl_saved.new" "$sysctl_saved"
	# The guard holds the lock (fd 9) until it exits. This shell is gone
	# once its /proc entry is, or is a zombie, or is another process's
	# (the same pid, another start time).
	# shellcheck disable=SC2016
	setsid bash -c 'alive_since() { local s f; s=$(cat "/proc/$1/stat" 2>/dev/null) || return 1
			s=${s##*) }; read -r -a f <<<"$s"; [ "${f[0]}" != Z ] && echo "${f[19]}"; }
		started=$(alive_since "$1")
		while now=$(alive_since "$1") && [ "$now" = "$started" ]; do sleep 0.2; done
		v=$(head -c 16 "$2" 2>/dev/null) || exit 0
		if [[ "$v" =~ ^[0-9]{1,10}$ ]]; then echo "$v" >"$3" && rm -f "$2"; fi' guard $$ "$sysctl_saved" "$sysctl_file" \
		</dev/null >/dev/null 2>&1 &
	sysctl_guard=$!
	exec 9>&-
	log "$1 = $2 for this run (was $sysctl_before)"
	echo "$2" >"$sysctl_file"
}
# sysctl_number FILE: the number FILE holds (a sysctl, a saved value), or die.
sysctl_number() {
	local v
	v=$(head -c 32 "$1")
	[[ "$v" =~ ^[0-9]{1,10}$ ]] || die "sysctl_hold: $1 does not hold a number: refused" \
		"check the sysctl by hand; remove $1 once it holds what it should"
	echo "$v"
}
sysctl_put_back() {
	echo "$sysctl_before" >"$sysctl_file" && rm -f "$sysctl_saved"
	kill "$sysctl_guard" 2>/dev/null || true # and with it the lock
	log "$sysctl_name = $sysctl_before again"
}
