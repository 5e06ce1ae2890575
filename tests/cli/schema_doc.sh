#!/usr/bin/env bash
# docs/profile-format.md's column tables say what format/schema.h declares: every
# column's number and name, in order, for the routines, calls and paths rows; and a
# profile written by the runtime has rows exactly as wide as the schema says.
. "$(dirname "$0")/../lib/cli.sh"
cd "$tmp"

cat > dump.c <<'EOF2'
#include <stdio.h>
#include "schema.h"
int main(void)
{
    for (int c = 0; c < CPROF_ROUTINE_NCOLUMNS; c++)
        printf("routines %d %s\n", c, cprof_routine_columns[c].name);
    for (int c = 0; c < CPROF_CALL_NCOLUMNS; c++)
        printf("calls %d %s\n", c, cprof_call_columns[c].name);
    for (int c = 0; c < CPROF_PATH_NCOLUMNS; c++)
        printf("paths %d %s\n", c, cprof_path_columns[c].name);
    printf("widths %d %d %d\n", CPROF_ROUTINE_NCOLUMNS, CPROF_CALL_NCOLUMNS, CPROF_PATH_NCOLUMNS);
    return 0;
}
EOF2
if ! "$plain_cc" -std=gnu11 -Wall -Wextra -Werror -I"$root/format" dump.c -o dump 2> cc.err; then
    nok "format/schema.h compiles on its own, warning-free" "$(indent cc.err)"
    finish; exit
fi
ok "format/schema.h compiles on its own, warning-free"
./dump | grep -v '^widths' > schema.txt

# The doc's tables: "| 10–13 | `a`, `b`, `c`, `d` | ..." gives 10 a, 11 b, 12 c, 13 d.
awk '
    /^`routines` rows/ { table = "routines" }
    /^`calls` rows/ { table = "calls" }
    /^`paths` rows/ { table = "paths" }
    table && /^\| [0-9]/ {
        split($0, cell, " \\| ")
        key = substr(cell[1], 3)
        gsub("–", "-", key)
        n = split(key, parts, /, |-/)
        first = parts[1] + 0
        last = (key ~ /-/) ? parts[2] + 0 : parts[n] + 0
        names = cell[2]
        k = 0
        while (match(names, /`[^`]+`/)) {
            name[k++] = substr(names, RSTART + 1, RLENGTH - 2)
            names = substr(names, RSTART + RLENGTH)
        }
        if (key ~ /-/) { for (c = first; c <= last; c++) print table, c, name[c - first] }
        else { for (i = 1; i <= n; i++) print table, parts[i] + 0, name[i - 1] }
    }
    /^$/ && table && seen[table]++ > 0 { table = "" }
' "$root/docs/profile-format.md" > doc.txt
check "docs/profile-format.md names every column as format/schema.h does, in order" \
    "$(diff schema.txt doc.txt | head -8 | sed 's/^/  | /')" -- cmp -s schema.txt doc.txt

# The runtime writes rows of the schema's widths.
cat > prog.c <<'EOF2'
#include <stdio.h>
static int leaf(int x) { for (int i = 0; i < 2; i++) x += i; return x; }
int main(void) { printf("%d\n", leaf(1)); return 0; }
EOF2
"$bin/cprof-cc" -O2 prog.c -o prog > cc.err 2>&1 || nok "build prog.c" "$(indent cc.err)"
CPROF_OUT=$tmp/p.out ./prog > /dev/null
read -r _ rw cw pw < <(./dump | grep '^widths')
got=$(jq -c '[([.workers[].routines[] | length] | unique), ([.workers[].calls[] | length] | unique),
              ([.workers[].paths[] | length] | unique)]' p.out)
check "a profile's rows are as wide as the schema says ($rw, $cw, $pw)" "got $got" -- \
    [ "$got" = "[[$rw],[$cw],[$pw]]" ]
finish
