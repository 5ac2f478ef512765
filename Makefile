# uringprobe: PGXS build of the extension module and of uringprobe-cli.
#
#   make [PG_CONFIG=...]            build the module and the CLI
#   make install [PG_CONFIG=...]    install both into that server
#   make uringprobe-cli             the CLI alone (with no server's headers:
#                                   against the system's liburing)
#   make installcheck               pg_regress against a running server
#   make test                       set up servers and run every test
#   make bench                      set up servers and run the benchmarks
#                                   (PROFILE=full for the report-sized matrices,
#                                   LIST=1 to show the matrix only; see below)
#   make soak [SOAK_SECONDS=180]    every experiment from 8 concurrent sessions,
#                                   then leaks, crashes and the log checked
#   make deb                        Debian packages (pg_buildext) into build/deb

EXTENSION = uringprobe
MODULE_big = uringprobe
# The scripts are made from the engine's tables of SQL functions
# (src/engine/registry): every version's install script and each upgrade,
# as `uringprobe-cli sql --scripts` lists them (t/029 checks this list).
DATA_built = uringprobe--0.1.sql uringprobe--0.1--0.2.sql uringprobe--0.2.sql
# Every file in sql/, error_of first (it creates the extension and the
# helper the others call bad input through); `make regress-list` prints them.
REGRESS = error_of $(sort $(filter-out error_of,$(basename $(notdir $(wildcard sql/*.sql)))))

ENGINE_OBJS = $(patsubst %.cpp,%.o,$(wildcard src/engine/*/*.cpp))
PG_OBJS = $(patsubst %.cpp,%.o,$(wildcard src/pg/*.cpp))
CLI_OBJS = $(patsubst %.cpp,%.o,$(wildcard src/cli/*.cpp))
OBJS = $(ENGINE_OBJS) $(PG_OBJS)
SHLIB_LINK = -luring -ldl -lstdc++
EXTRA_CLEAN = uringprobe-cli $(CLI_OBJS)

PG_CONFIG ?= pg_config
PG_CXXFLAGS = -std=c++17 -Wall -Wextra -fPIC -fno-omit-frame-pointer -pthread
# The engine's headers are named from src/engine: "os/fd.hpp".
PG_CPPFLAGS = -Isrc/engine
# Server headers are not ours to warn about.
override with_llvm = no

# `make test`, `make bench` and `make soak` set up their own servers: no
# PG_CONFIG needed.
BOOTSTRAP_GOALS = test bench soak regress-list deb
# the CLI's link, with or without a server's PGXS
LINK_CLI = $(CXX) $(CXXFLAGS) $(PG_CXXFLAGS) $(LDFLAGS) -o $@ $^ -luring -ldl -pthread
PGXS := $(wildcard $(shell $(PG_CONFIG) --pgxs 2>/dev/null))
ifeq ($(PGXS)$(filter-out uringprobe-cli,$(or $(MAKECMDGOALS),all)),)
# `make uringprobe-cli` where no server's headers are: the CLI alone,
# against the system's liburing (what tools/run-advise builds on a host
# whose server is not to be touched).
uringprobe-cli: CXXFLAGS = -O2 -g $(PG_CXXFLAGS)
uringprobe-cli: CPPFLAGS = -Isrc/engine
uringprobe-cli: $(ENGINE_OBJS) $(CLI_OBJS)
	$(LINK_CLI)
else ifneq ($(filter-out $(BOOTSTRAP_GOALS),$(or $(MAKECMDGOALS),all)),)
ifeq ($(PGXS),)
$(error PG_CONFIG=$(PG_CONFIG) is not a usable pg_config (install postgresql-server-dev-NN or pass PG_CONFIG=/path/to/pg_config))
endif
include $(PGXS)
override CPPFLAGS := $(patsubst -I$(includedir_server),-isystem $(includedir_server),$(patsubst -I$(includedir_internal),-isystem $(includedir_internal),$(CPPFLAGS)))
# The engine and the CLI include nothing of PostgreSQL: compiled with flags
# of their own, so that a compiler cache filled by one server's build
# serves the others'. Only the server's -I directories are kept: they name
# the liburing it was built against (a newer one than the system's).
# Hidden visibility as PostgreSQL 18 builds modules, for every server.
$(ENGINE_OBJS) $(CLI_OBJS): override CXXFLAGS = -O2 -g $(PG_CXXFLAGS) -fvisibility=hidden \
	-fvisibility-inlines-hidden
$(ENGINE_OBJS) $(CLI_OBJS): override CPPFLAGS := $(filter -I%,$(CPPFLAGS))

all: uringprobe-cli

uringprobe-cli: $(ENGINE_OBJS) $(CLI_OBJS)
	$(LINK_CLI)

uringprobe--%.sql: uringprobe-cli
	./uringprobe-cli sql --script $@ >$@.tmp && mv $@.tmp $@
# the scripts alone
scripts: $(DATA_built)
.PHONY: scripts

install: install-cli
install-cli: uringprobe-cli
	$(MKDIR_P) '$(DESTDIR)$(bindir)'
	$(INSTALL_PROGRAM) uringprobe-cli '$(DESTDIR)$(bindir)/uringprobe-cli'
.PHONY: install-cli
endif

test:
	tools/run-tests
# make deb: Debian packages postgresql-N-uringprobe (pg_buildext) into build/deb
deb:
	tools/build-deb
regress-list:
	@echo $(REGRESS)
# make test-sysctl: the one test that sets the host's kernel.io_uring_disabled
# (as root; put back however it ends), which make test never touches
test-sysctl:
	URINGPROBE_TESTS=t/host_sysctl/io_uring_disabled.pl tools/run-tests
# make bench [PROFILE=quick|full] [BENCHES="..."] [SERVERS="..."]
#   [IO_METHODS="..."] [FILESYSTEMS="..."] [CLIENTS="..."] [LIST=1]
#   [BASELINE=results/<time>] [THRESHOLD=percent] [RESULTS=dir]
#   [PERF=1 [PERF_KEEP=1]] [MAX_ROUNDS=n] [EXTRA_SHARE=percent]
BENCH_ENV = $(if $(PROFILE),URINGPROBE_PROFILE='$(PROFILE)') \
	$(if $(BENCHES),URINGPROBE_BENCHES='$(BENCHES)') \
	$(if $(SERVERS),URINGPROBE_BENCH_SERVERS='$(SERVERS)') \
	$(if $(IO_METHODS),URINGPROBE_BENCH_IO_METHODS='$(IO_METHODS)') \
	$(if $(FILESYSTEMS),URINGPROBE_BENCH_FS='$(FILESYSTEMS)') \
	$(if $(CLIENTS),URINGPROBE_BENCH_CLIENTS='$(CLIENTS)') \
	$(if $(BASELINE),URINGPROBE_BASELINE='$(BASELINE)') \
	$(if $(THRESHOLD),URINGPROBE_THRESHOLD='$(THRESHOLD)') \
	$(if $(RESULTS),URINGPROBE_RESULTS='$(RESULTS)') \
	$(if $(PERF),URINGPROBE_PERF='$(PERF)') \
	$(if $(PERF_KEEP),URINGPROBE_PERF_KEEP='$(PERF_KEEP)') \
	$(if $(MAX_ROUNDS),URINGPROBE_MAX_ROUNDS='$(MAX_ROUNDS)') \
	$(if $(EXTRA_SHARE),URINGPROBE_EXTRA_SHARE='$(EXTRA_SHARE)')
bench:
	$(strip $(BENCH_ENV) tools/run-bench $(if $(LIST),--list))
# make soak [SOAK_SECONDS=180] [SOAK_CLIENTS=8] [SOAK_SERVER=name]
# [SOAK_IO_METHOD=io_uring]: every experiment from concurrent pgbench
# sessions, then leaks, crashes and the log checked.
soak:
	$(strip $(BENCH_ENV) URINGPROBE_BENCHES=soak $(if $(SOAK_SECONDS),URINGPROBE_SOAK_SECONDS='$(SOAK_SECONDS)') \
	  $(if $(SOAK_CLIENTS),URINGPROBE_SOAK_CLIENTS='$(SOAK_CLIENTS)') \
	  $(if $(SOAK_SERVER),URINGPROBE_SOAK_SERVER='$(SOAK_SERVER)') \
	  $(if $(SOAK_IO_METHOD),URINGPROBE_SOAK_IO_METHOD='$(SOAK_IO_METHOD)') tools/run-bench)
.PHONY: test test-sysctl bench soak regress-list deb
