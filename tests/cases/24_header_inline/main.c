#include <stdio.h>
#include "util.h"

int a_sum(int n);
static int early;

__attribute__((constructor)) static void init(void)
{
    early = hsq(7);
}

int main(void)
{
    int s = a_sum(4) + hsq(3);
    printf("s=%d early=%d\n", s, early);
    return 0;
}
