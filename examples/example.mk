# example.mk: the rules every example shares.  An example's Makefile sets PROG (the
# program, built from $(PROG).c), then includes this file.
#   make            build with cprof-cc (make CC=gcc for a plain build)
#   make run        run with 2 threads; the profile goes to cprof.out here
#   make clean

# `CC ?= cprof-cc` in the example's Makefile is not enough on its own: make's
# built-in default CC=cc counts as set.  A CC given on the command line or in the
# environment still wins.
ifeq ($(origin CC),default)
CC = cprof-cc
endif
CFLAGS ?= -fopenmp -O2 -Wall

$(PROG): $(PROG).c
	$(CC) $(CFLAGS) $< -o $@ -lm

run: $(PROG)
	OMP_NUM_THREADS=2 ./$(PROG)

clean:
	rm -f $(PROG) cprof.out

.PHONY: run clean
