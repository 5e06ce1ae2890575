int other(int x);
