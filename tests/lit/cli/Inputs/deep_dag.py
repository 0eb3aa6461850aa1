"""Prints a TTIR function of N adds, each adding the previous value to itself: a DAG whose
tree cost doubles per op (2^N: beyond a double after about 1,024 ops)."""
import sys

n = int(sys.argv[1])
t = "tensor<32x32xf32>"
print(f"func.func @main(%a: {t}) -> {t} {{")
prev = "%a"
for i in range(n):
    print(f'  %v{i} = "ttir.add"({prev}, {prev}) : ({t}, {t}) -> {t}')
    prev = f"%v{i}"
print(f"  return {prev} : {t}\n}}")
