#include "other.h"

int other(int x) { return x + 100; }
