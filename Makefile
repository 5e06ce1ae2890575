# cprof: build, test and install.
#   make deps            install the Debian packages cprof needs (as root)
#   make                 build everything into build/
#   make demo            profile examples/jacobi and print the report
#   make examples        build every examples/*/ with cprof-cc, run it, read its profile
#   make check           run the test suite (tests/run), with gcc and with clang
#   make bench           benchmarks: cost per call against gprof, uftrace and the floor;
#                        examples' slowdown and memory; whole programs in instructions
#                        and wall time; compile time against gcc;
#                        cprof-report --compensate against a program of known costs;
#                        cprof-report summing 1024 ranks of an MPI job; traces;
#                        input sizes' slowdown and memory
#   make install PREFIX=DIR, make uninstall PREFIX=DIR
#   make fuzz [FUZZ_SECONDS=60]   fuzz the profile reader (clang-14, libFuzzer)
# SANITIZE=1 builds the tools (not the runtime) with -fsanitize=address,undefined.

PREFIX     ?= /usr/local
CPROF_VERSION := $(shell sed -n 's/^\#define CPROF_VERSION "\(.*\)"/\1/p' format/version.h)
CC         ?= gcc
LLVM_CONFIG ?= $(firstword $(wildcard /usr/lib/llvm-14/bin/llvm-config /usr/bin/llvm-config))
# Empty before libclang-dev is installed (make deps, make print-deps still work).
CLANG_INC  := $(if $(LLVM_CONFIG),$(shell $(LLVM_CONFIG) --includedir))
CLANG_LIB  := $(if $(LLVM_CONFIG),$(shell $(LLVM_CONFIG) --libdir))

# Build and test dependencies, all from Debian.
# libhwloc-dev: cprof-topology, the machine's topology for the profile (hwloc also
# gives tests/cli/placement.sh lstopo to compare with); chromium: tests/cli/html.sh opens cprof-report --html's page headless (its fonts come
# with it); python3: tests/lib/trace_check.py, the Trace Event Format checker; valgrind
# and bc: make bench's instruction counts and arithmetic; clang-14 and libomp-14-dev:
# cprof-cc with clang and LLVM's OpenMP runtime (omp-tools.h for runtime/ext/ompt.c; make
# check runs the suite with both compilers).
DEBIAN_PACKAGES := gcc g++ make cmake autoconf gdb strace uftrace libclang-dev libjansson-dev jq pkg-config graphviz groff-base \
                   clang-14 libclang-rt-14-dev libomp-14-dev chromium openmpi-bin libopenmpi-dev python3 \
                   valgrind bc libhwloc-dev hwloc

B := build
# The helper that reads the machine's topology with hwloc (topology/), for the runtime.
TOPOLOGY := libexec/cprof/cprof-topology
CFLAGS_COMMON := -std=gnu11 -Wall -Wextra -O2 -g
ifeq ($(SANITIZE),1)
TOOL_SAN := -fsanitize=address,undefined -fno-omit-frame-pointer
endif

# libcprof: the core (runtime/core/), the extensions (runtime/ext/) it names none of,
# and start.c above both (docs/architecture.md, tests/cli/layers.sh).
RT_SRC  := runtime/start.c $(wildcard runtime/core/*.c runtime/ext/*.c)
RT_OBJ  := $(RT_SRC:%.c=$(B)/obj/%.o)
RT_PIE_OBJ := $(RT_SRC:runtime/%.c=$(B)/obj/runtime-pie/%.o)
# cprof-cc (the driver) does not load libclang; cprof-rewrite does.
CC_OBJ  := $(patsubst %,$(B)/obj/preprocessor/%.o,driver args cmdline process client options alloc)
RW_OBJ  := $(patsubst %,$(B)/obj/preprocessor/%.o,rewriter rewrite buffer cursor pragmas select \
                                                  walk regions clauses addresses analyze comments render twins \
                                                  tables \
                                                  server options alloc) \
           $(B)/obj/gen/cprof_h.o
# cprof-report: the model (reports/model/) under the views (reports/views/), main.c
# choosing among them (docs/architecture.md, tests/cli/layers.sh).
RP_SRC  := reports/main.c $(wildcard reports/model/*.c reports/views/*.c)
RP_OBJ  := $(RP_SRC:%.c=$(B)/obj/%.o) $(B)/obj/gen/page.o

all: $(B)/bin/cprof-cc $(B)/bin/cprof-clang $(B)/libexec/cprof/cprof-rewrite $(B)/bin/cprof-report $(B)/lib/libcprof.a $(B)/lib/libcprof.so $(B)/include/cprof.h $(B)/lib/cprof-link.opt \
     $(B)/$(TOPOLOGY)

# The runtime is linked into every profiled program, including shared objects: PIC.
# Its thread-local shard is reached without __tls_get_addr (initial-exec) and libgomp
# without a PLT stub: both are on the path of every call.  The static runtime goes
# into programs only: built apart as position-independent executable code, its
# thread-local data is at a constant offset from the thread pointer (local-exec), one
# load less and a register free in every hook.
# It uses no OpenMP itself, and binds to whichever runtime the program loads: omp.h is
# gcc's, omp-tools.h (OMPT, runtime/ext/ompt.c) LLVM's, from libomp-dev.
RT_CFLAGS := -fno-plt -DCPROF_BUILDING_RUNTIME
RT_PIC := -fPIC -ftls-model=initial-exec
RT_PIE := -fPIE -ftls-model=local-exec
OMPT_INC  := $(patsubst %/omp-tools.h,%,$(firstword $(wildcard /usr/lib/llvm-*/lib/clang/*/include/omp-tools.h)))
# The runtime's code in a section of its own, cprof_text (the linker's __start_cprof_text
# and __stop_cprof_text bound it, in a static link too): runtime/ext/overhead.c counts the
# CPU samples whose instruction falls there, what profiling costs (docs/overhead.md).
RT_TEXT = objcopy $(foreach s,.text .text.unlikely .text.hot .text.startup .text.exit,\
                    --rename-section $(s)=cprof_text) $@
RT_HEADERS := runtime/cprof.h $(wildcard runtime/core/*.h runtime/ext/*.h format/*.h)
$(B)/obj/runtime/ext/ompt.o $(B)/obj/runtime-pie/ext/ompt.o: RT_DEFS = -idirafter $(OMPT_INC)
$(B)/obj/runtime/%.o: runtime/%.c $(RT_HEADERS)
	@mkdir -p $(@D)
	$(CC) $(CFLAGS_COMMON) $(RT_CFLAGS) $(RT_PIC) $(RT_DEFS) -c $< -o $@ && $(RT_TEXT)
$(B)/obj/runtime-pie/%.o: runtime/%.c $(RT_HEADERS)
	@mkdir -p $(@D)
	$(CC) $(CFLAGS_COMMON) $(RT_CFLAGS) $(RT_PIE) $(RT_DEFS) -c $< -o $@ && $(RT_TEXT)

# The runtime runs cprof-topology by its path (runtime/ext/topology.c): the build tree's in
# the runtime built here, the installation's in the one make install copies, whose
# topology.o is compiled again for $(PREFIX) (build/inst/prefix: the last one).
$(B)/obj/runtime/ext/topology.o $(B)/obj/runtime-pie/ext/topology.o: \
    RT_DEFS = -DCPROF_TOPOLOGY='"$(abspath $(B))/$(TOPOLOGY)"'
$(B)/inst/obj/topology.o $(B)/inst/obj-pie/topology.o: RT_DEFS = -DCPROF_TOPOLOGY='"$(PREFIX)/$(TOPOLOGY)"'
$(B)/inst/obj/topology.o: runtime/ext/topology.c $(RT_HEADERS) $(B)/inst/prefix
	@mkdir -p $(@D)
	$(CC) $(CFLAGS_COMMON) $(RT_CFLAGS) $(RT_PIC) $(RT_DEFS) -c $< -o $@ && $(RT_TEXT)
$(B)/inst/obj-pie/topology.o: runtime/ext/topology.c $(RT_HEADERS) $(B)/inst/prefix
	@mkdir -p $(@D)
	$(CC) $(CFLAGS_COMMON) $(RT_CFLAGS) $(RT_PIE) $(RT_DEFS) -c $< -o $@ && $(RT_TEXT)
$(B)/inst/prefix: FORCE
	@mkdir -p $(@D)
	@echo '$(PREFIX)' | cmp -s - $@ || echo '$(PREFIX)' > $@
INST_RT_OBJ := $(filter-out %/topology.o,$(RT_OBJ)) $(B)/inst/obj/topology.o
INST_RT_PIE_OBJ := $(filter-out %/topology.o,$(RT_PIE_OBJ)) $(B)/inst/obj-pie/topology.o
$(B)/inst/lib/libcprof.a: $(INST_RT_PIE_OBJ)
	@mkdir -p $(@D)
	rm -f $@ && ar rcs $@ $^
$(B)/inst/lib/libcprof.so: $(filter-out %/libcalls.o,$(INST_RT_OBJ)) $(B)/lib/cprof-link.opt
	@mkdir -p $(@D)
	$(CC) -shared -Wl,-z,nodelete -Wl,@$(B)/lib/cprof-link.opt $(filter-out %/libcalls.o,$(INST_RT_OBJ)) \
	    -o $@

$(B)/obj/topology/%.o: topology/%.c format/topology.h
	@mkdir -p $(@D)
	$(CC) $(CFLAGS_COMMON) $(TOOL_SAN) $$(pkg-config --cflags hwloc) -c $< -o $@

$(B)/$(TOPOLOGY): $(B)/obj/topology/cprof-topology.o
	@mkdir -p $(@D)
	$(CC) $(TOOL_SAN) $^ $$(pkg-config --libs hwloc) -o $@

$(B)/lib/libcprof.a: $(RT_PIE_OBJ)
	@mkdir -p $(@D)
	rm -f $@ && ar rcs $@ $^

# Shared libraries built by cprof-cc link this one: one runtime per process, whether
# the program is profiled (its static copy, exported, wins) or not.  Never unloaded
# (nodelete): a dlclosed library leaves its counts in it until the profile is written.
# Without runtime/ext/libcalls.c: its wrappers call the __real_ names that only a link with
# -Wl,--wrap defines (cprof-cc -fcprof-input-size, docs/input-size.md).
$(B)/lib/libcprof.so: $(filter-out %/libcalls.o,$(RT_OBJ)) $(B)/lib/cprof-link.opt
	@mkdir -p $(@D)
	$(CC) -shared -Wl,-z,nodelete -Wl,@$(B)/lib/cprof-link.opt $(filter-out %/libcalls.o,$(RT_OBJ)) \
	    -o $@

# The linker's options every profiled program and library gets (cprof-cc passes them
# as -Wl,@FILE): libgomp's entry points that runtime/ext/gomp.c wraps and the signal calls
# runtime/ext/signals.c does, and those wrappers exported, so that a profiled library's
# calls reach the program's runtime; and the OMPT tool's entry point (runtime/ext/ompt.c),
# which libomp looks up.  The list is what gomp.o and signals.o define.
$(B)/lib/cprof-link.opt: $(B)/obj/runtime/ext/gomp.o $(B)/obj/runtime/ext/signals.o
	@mkdir -p $(@D)
	{ nm $^ | sed -n 's/^[0-9a-f]* T __wrap_/--wrap=/p'; \
	  echo '--export-dynamic-symbol=__wrap_*'; echo '--export-dynamic-symbol=ompt_start_tool'; } > $@

$(B)/include/cprof.h: runtime/cprof.h
	@mkdir -p $(@D)
	cp $< $@

# $(call embed,NAME,FILE): the shell command that prints FILE as the C string NAME.
embed = { echo 'const char $(1)[] ='; sed 's/\\/\\\\/g; s/"/\\"/g; s/^/"/; s/$$/\\n"/' $(2); echo ';'; }

# cprof-cc pastes the ABI header into every rewritten source: embed it as a string.
$(B)/gen/cprof_h.c: runtime/cprof.h
	@mkdir -p $(@D)
	$(call embed,cprof_header_text,$<) > $@

# cprof-report --html writes this page, its script and its data (reports/views/html.c).
$(B)/gen/page.c: reports/views/page.html reports/views/page.js
	@mkdir -p $(@D)
	{ $(call embed,cprof_page_html,reports/views/page.html); \
	  $(call embed,cprof_page_js,reports/views/page.js); } > $@

$(B)/obj/gen/%.o: $(B)/gen/%.c
	@mkdir -p $(@D)
	$(CC) $(CFLAGS_COMMON) -c $< -o $@

$(B)/obj/preprocessor/%.o: preprocessor/%.c $(wildcard preprocessor/*.h) format/version.h format/hash.h
	@mkdir -p $(@D)
	$(CC) $(CFLAGS_COMMON) $(TOOL_SAN) -I$(CLANG_INC) -c $< -o $@

$(B)/bin/cprof-cc: $(CC_OBJ)
	@mkdir -p $(@D)
	$(CC) $(TOOL_SAN) $^ -o $@

# cprof-cc by another name: its compilers are clang and clang++ (CC=cprof-clang).
$(B)/bin/cprof-clang: $(B)/bin/cprof-cc
	ln -sf cprof-cc $@

$(B)/libexec/cprof/cprof-rewrite: $(RW_OBJ)
	@mkdir -p $(@D)
	$(CC) $(TOOL_SAN) $^ -L$(CLANG_LIB) -Wl,-rpath,$(CLANG_LIB) -lclang -o $@

$(B)/obj/reports/%.o: reports/%.c $(wildcard reports/*/*.h) format/schema.h format/trace.h \
                      format/version.h format/hash.h
	@mkdir -p $(@D)
	$(CC) $(CFLAGS_COMMON) $(TOOL_SAN) $$(pkg-config --cflags jansson) -c $< -o $@

$(B)/bin/cprof-report: $(RP_OBJ)
	@mkdir -p $(@D)
	$(CC) $(TOOL_SAN) $^ $$(pkg-config --libs jansson) -lm -o $@

# The libFuzzer target for the profile reader and the JSON writer (tests/fuzz/): every
# reports/model/*.c and reports/views/*.c (not main.c), under ASan, UBSan (aborting) and LeakSanitizer.
FUZZ_CC      ?= clang-14
FUZZ_SECONDS ?= 60
FUZZ_SRC      = tests/fuzz/profile_fuzz.c $(wildcard reports/model/*.c reports/views/*.c) \
                $(B)/gen/page.c

$(B)/fuzz/profile_fuzz: $(FUZZ_SRC) $(wildcard reports/*/*.h) format/schema.h
	@mkdir -p $(@D)
	$(FUZZ_CC) -std=gnu11 -Wall -Wextra -g -O1 -fno-omit-frame-pointer \
	  -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=all -Ireports \
	  $$(pkg-config --cflags jansson) $(FUZZ_SRC) $$(pkg-config --libs jansson) -lm -o $@

# Runs on a scratch copy of tests/fuzz/corpus; a reproducer lands in $(B)/fuzz/.
fuzz: $(B)/fuzz/profile_fuzz
	@tests/fuzz/run.sh $< $(FUZZ_SECONDS) $(B)/fuzz

deps:
	apt-get update -q && DEBIAN_FRONTEND=noninteractive apt-get install -y -q $(DEBIAN_PACKAGES)

# The list alone, for .ci/run.
print-deps:
	@echo $(DEBIAN_PACKAGES)

demo: all
	$(MAKE) -C examples/jacobi clean
	$(MAKE) -C examples/jacobi CC=$(CURDIR)/$(B)/bin/cprof-cc
	cd examples/jacobi && OMP_NUM_THREADS=2 ./jacobi
	$(B)/bin/cprof-report examples/jacobi/cprof.out

# Every example: a clean build with cprof-cc, a run (OMP_NUM_THREADS=2, which writes
# DIR/cprof.out; examples/heat_mpi, an MPI job, one DIR/cprof.RANK.out per rank), and
# cprof-report reading the profiles; the first failure stops it.
EXAMPLE_DIRS := $(sort $(dir $(wildcard examples/*/Makefile)))

examples: all
	@set -e; for d in $(EXAMPLE_DIRS); do \
	    echo "== $$d"; \
	    $(MAKE) --no-print-directory -C $$d clean; \
	    $(MAKE) --no-print-directory -C $$d CC=$(CURDIR)/$(B)/bin/cprof-cc; \
	    $(MAKE) --no-print-directory -C $$d CC=$(CURDIR)/$(B)/bin/cprof-cc run; \
	    $(B)/bin/cprof-report --json $$d/cprof*.out > /dev/null; \
	done

# The suite under gcc, then under clang (libomp): tests/run's CPROF_TEST_CC.
check: all
	CPROF_TEST_CC="gcc clang" tests/run

# Benchmarks print ratios against baselines measured in the same run, never assert.
bench: all
	@echo "CPU: $$(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ *//'), $$(nproc) CPUs"
	@echo "== cost per call"; bench/calls.sh
	@echo; echo "== examples: slowdown, profiler share, profile size, peak memory"; bench/examples.sh
	@echo; echo "== call-heavy programs: slowdown with default settings, counts against count-only"; bench/callheavy.sh
	@echo; echo "== whole programs: instructions (callgrind, one thread) and wall time against gcc, default and every-call timing"; bench/programs.sh
	@echo; echo "== the profiler's share of the run: true, measured by CPU samples, estimated"; bench/overhead.sh
	@echo; echo "== compile time"; bench/compile.sh
	@echo; echo "== --compensate against known costs"; bench/compensate.sh
	@echo; echo "== parallel regions: what the region hooks add per execution"; bench/regions.sh
	@echo; echo "== tasks: instructions added per task made and run"; bench/tasks.sh
	@echo; echo "== nested tasks: bytes of stack per nesting level against gcc's"; bench/task_stack.sh
	@echo; echo "== writing the profile at exit: 10000 routines x 64 workers"; bench/exit.sh
	@echo; echo "== resources beyond time: sampling cpu,faults against none"; bench/resources.sh
	@echo; echo "== an MPI job's ranks summed: 1024 ranks of a 200-routine program"; bench/ranks.sh
	@echo; echo "== tracing: the examples' traces, 10 million events converted"; bench/trace.sh
	@echo; echo "== input sizes (-fcprof-input-size): slowdown and memory, one thread, every activation sized and sampled"; bench/sizes.sh

# What `make install` puts under $(PREFIX), and `make uninstall` takes away.
INSTALLED := bin/cprof-cc bin/cprof-clang bin/cprof-report libexec/cprof/cprof-rewrite $(TOPOLOGY) lib/libcprof.a \
             lib/libcprof.so lib/cprof-link.opt include/cprof.h lib/pkgconfig/cprof.pc \
             share/man/man1/cprof-cc.1 share/man/man1/cprof-report.1 share/man/man7/cprof.7

install: all $(B)/inst/lib/libcprof.a $(B)/inst/lib/libcprof.so
	install -d $(DESTDIR)$(PREFIX)/bin $(DESTDIR)$(PREFIX)/lib $(DESTDIR)$(PREFIX)/include
	install -m 755 $(B)/bin/cprof-cc $(B)/bin/cprof-report $(DESTDIR)$(PREFIX)/bin/
	ln -sf cprof-cc $(DESTDIR)$(PREFIX)/bin/cprof-clang
	install -d $(DESTDIR)$(PREFIX)/libexec/cprof
	install -m 755 $(B)/libexec/cprof/cprof-rewrite $(B)/$(TOPOLOGY) $(DESTDIR)$(PREFIX)/libexec/cprof/
	install -m 644 $(B)/inst/lib/libcprof.a $(DESTDIR)$(PREFIX)/lib/
	install -m 755 $(B)/inst/lib/libcprof.so $(DESTDIR)$(PREFIX)/lib/
	install -m 644 $(B)/lib/cprof-link.opt $(DESTDIR)$(PREFIX)/lib/
	install -m 644 runtime/cprof.h $(DESTDIR)$(PREFIX)/include/
	install -d $(DESTDIR)$(PREFIX)/lib/pkgconfig
	sed 's|@PREFIX@|$(PREFIX)|; s|@VERSION@|$(CPROF_VERSION)|' runtime/cprof.pc.in \
	    > $(DESTDIR)$(PREFIX)/lib/pkgconfig/cprof.pc
	install -d $(DESTDIR)$(PREFIX)/share/man/man1 $(DESTDIR)$(PREFIX)/share/man/man7
	install -m 644 preprocessor/cprof-cc.1 reports/cprof-report.1 $(DESTDIR)$(PREFIX)/share/man/man1/
	install -m 644 runtime/cprof.7 $(DESTDIR)$(PREFIX)/share/man/man7/

uninstall:
	rm -f $(addprefix $(DESTDIR)$(PREFIX)/,$(INSTALLED))
	-rmdir $(DESTDIR)$(PREFIX)/libexec/cprof 2> /dev/null

clean:
	rm -rf $(B)

.PHONY: all deps print-deps demo examples check bench install uninstall clean fuzz FORCE
