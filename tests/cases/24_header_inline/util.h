/* util.h: a static inline routine defined in a header included by two units */
static inline int hsq(int x)
{
    return x * x;
}
