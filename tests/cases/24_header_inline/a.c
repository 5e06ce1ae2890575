#include "util.h"

int a_sum(int n)
{
    int s = 0;
    for (int i = 0; i < n; i++)
        s += hsq(i);
    return s;
}
