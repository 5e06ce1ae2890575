#include <stdio.h>

int a_run(int n);
int b_run(int n);

int main(void)
{
    int s = a_run(3);
    s += b_run(8);
    s += a_run(2);
    printf("s=%d\n", s);
    return 0;
}
