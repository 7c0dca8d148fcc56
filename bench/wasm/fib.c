// Benchmark: naive recursive fib(35). Built for wasm32 and natively by run.sh.
#ifdef __wasm__
#define EXPORT(name) __attribute__((export_name(name)))
#else
#define EXPORT(name)
#endif

static int fib(int n) { return n < 2 ? n : fib(n - 1) + fib(n - 2); }

// volatile keeps the native build from folding the argument.
static volatile int kN = 35;

EXPORT("bench_fib") int bench_fib(void) { return fib(kN); }

#ifdef NATIVE
#include <stdio.h>
int main(void) {
  printf("%d\n", bench_fib());
  return 0;
}
#endif
