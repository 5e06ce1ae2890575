/* Text with no blank where the rewriter inserts: a body that starts with a call
 * (the entry hook goes before the call's facade, not into it), and a construct's
 * statement followed at once by a call (the brace that closes the construct's site
 * goes between the two).  g and h noinline: timed, so f keeps its hook. */
#include <stdio.h>
int g(int x);
int h(int x);
int leaf(int x){return x+printf("%d\n",x)*0;}
int f(int x){g(x);return h(x)-1;}
void par(void){
#pragma omp parallel num_threads(2)
leaf(1);leaf(2);
}
__attribute__((noinline)) int g(int x){return x+1;}
__attribute__((noinline)) int h(int x){return x*2;}
int main(void){f(1);par();return 0;}
