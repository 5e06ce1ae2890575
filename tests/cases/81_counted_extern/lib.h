int ext_leaf(int x);
int ext_chain(int x);
int ext_pointed(int x);
int ext_weak(int x);
int ext_loop(int n);
int (*lib_pointer(void))(int);
long lib_driver(int n);
