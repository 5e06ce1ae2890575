/* hooks.c: the cheapest -finstrument-functions hooks: empty, out of line. */
__attribute__((no_instrument_function)) void __cyg_profile_func_enter(void *f, void *c)
{
    __asm__ volatile("" :: "r"(f), "r"(c));
}
__attribute__((no_instrument_function)) void __cyg_profile_func_exit(void *f, void *c)
{
    __asm__ volatile("" :: "r"(f), "r"(c));
}
