/* macros from a header */
#define CALL_G(n) g(n)
#define SQUARE_F(x) ({ int t_ = f(x); t_ * t_; })
