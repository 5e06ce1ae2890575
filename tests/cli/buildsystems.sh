#!/usr/bin/env bash
# A user profiles a project by changing CC and nothing else: CMake with
# find_package(OpenMP), autoconf with AC_OPENMP, and make -j.
. "$(dirname "$0")/../lib/cli.sh"
cd "$tmp"
cc=$bin/cprof-cc
mkdir src
cat > src/work.c <<'EOF2'
static int leaf(int i) { return i % 7; }
int work(int n)
{
    int s = 0;
#pragma omp parallel for schedule(static) reduction(+:s)
    for (int i = 0; i < n; i++)
        s += leaf(i);
    return s;
}
EOF2
cat > src/main.c <<'EOF2'
#include <stdio.h>
int work(int n);
int main(void) { printf("%d\n", work(100)); return 0; }
EOF2
want='[["<external>","main",1,0],["main","work",1,0],["work","leaf",0,100]]'
arcs='[.arcs[] | [.caller, .callee, .s_callarc, .c_callarc]]'

# CMake
mkdir cmake && cp src/*.c cmake/ && cat > cmake/CMakeLists.txt <<'EOF2'
cmake_minimum_required(VERSION 3.13)
project(demo C)
find_package(OpenMP REQUIRED)
add_library(work STATIC work.c)
target_link_libraries(work PUBLIC OpenMP::OpenMP_C)
add_executable(demo main.c)
target_link_libraries(demo PRIVATE work)
EOF2
if command -v cmake > /dev/null; then
    (cd cmake && mkdir b && cd b && cmake -DCMAKE_C_COMPILER="$cc" .. > ../cmake.log 2>&1 && make -j2 > ../make.log 2>&1)
    st=$?
    check "cmake -DCMAKE_C_COMPILER=cprof-cc with find_package(OpenMP): configures and builds" \
        "$(indent cmake/cmake.log 30)" "$(indent cmake/make.log 20)" -- [ $st = 0 ]
    check "cmake identifies cprof-cc as $plain_cc and finds OpenMP" "$(indent cmake/cmake.log 30)" -- \
        grep -q 'Found OpenMP_C: -fopenmp' cmake/cmake.log
    (cd cmake/b && CPROF_OUT=prof.out ./demo > out) && "$bin/cprof-report" --json cmake/b/prof.out > cmake.json 2>&1
    expect_jq "cmake build: profiled (arcs exact)" cmake.json "$arcs" "$want"
else
    nok "cmake is installed" "apt-get install cmake"
fi

# autoconf
mkdir ac && cp src/*.c ac/ && cat > ac/configure.ac <<'EOF2'
AC_INIT([acdemo], [1.0])
AC_PROG_CC
AC_OPENMP
AC_CHECK_LIB([m], [sqrt])
AC_CHECK_HEADERS([omp.h stdlib.h])
AC_CONFIG_FILES([Makefile])
AC_OUTPUT
EOF2
cat > ac/Makefile.in <<'EOF2'
CC = @CC@
CFLAGS = @CFLAGS@ @OPENMP_CFLAGS@
LIBS = @LIBS@
acdemo: main.o work.o
	$(CC) $(CFLAGS) main.o work.o -o $@ $(LIBS)
EOF2
if command -v autoconf > /dev/null; then
    (cd ac && autoconf && ./configure CC="$cc" > configure.log 2>&1 && make -j2 > make.log 2>&1)
    st=$?
    check "./configure CC=cprof-cc with AC_OPENMP: configures and builds" \
        "$(indent ac/configure.log 30)" "$(indent ac/make.log 20)" -- [ $st = 0 ]
    check "AC_OPENMP finds -fopenmp through cprof-cc" "$(indent ac/configure.log 30)" -- \
        grep -q 'option to support OpenMP... -fopenmp' ac/configure.log
    (cd ac && CPROF_OUT=prof.out ./acdemo > out) && "$bin/cprof-report" --json ac/prof.out > ac.json 2>&1
    expect_jq "autoconf build: profiled (arcs exact)" ac.json "$arcs" "$want"
else
    nok "autoconf is installed" "apt-get install autoconf"
fi

# make -j8 of 16 units at once: every compile has its own temporary directory.
mkdir many && for i in $(seq 1 16); do printf 'int f%d(int x) { return x + %d; }\n' "$i" "$i" > many/f$i.c; done
{ echo '#include <stdio.h>'; for i in $(seq 1 16); do echo "int f$i(int);"; done
  echo 'int main(void) { int s = 0;'; for i in $(seq 1 16); do echo "s += f$i(0);"; done
  echo 'printf("%d\n", s); return 0; }'; } > many/main.c
printf 'CC = %s\nOBJ = $(patsubst %%.c,%%.o,$(wildcard *.c))\nprog: $(OBJ)\n\t$(CC) $(OBJ) -o $@\n' "$cc" > many/Makefile
(cd many && make -j8 > make.log 2>&1)
check "make -j8 of 17 units through cprof-cc" "$(indent many/make.log 20)" -- test -x many/prog
(cd many && CPROF_OUT=prof.out ./prog > out) && "$bin/cprof-report" --json many/prof.out > many.json 2>&1
expect_jq "make -j8: every unit profiled" many.json '[.routines[] | .s_caller] | [length, add]' '[17, 17]'
finish
