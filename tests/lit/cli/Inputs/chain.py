"""Prints a TTIR function of N 32x32 ops in a chain: `matmul` multiplies the previous value by
one weight; `add` adds the previous value to itself, a DAG whose tree cost doubles per op
(2^N: beyond a double after about 1,024 ops)."""
import sys

op, n = sys.argv[1], int(sys.argv[2])
t = "tensor<32x32xf32>"
print(f"func.func @main(%a: {t}, %w: {t}) -> {t} {{")
prev = "%a"
for i in range(n):
    other = "%w" if op == "matmul" else prev
    print(f'  %v{i} = "ttir.{op}"({prev}, {other}) : ({t}, {t}) -> {t}')
    prev = f"%v{i}"
print(f"  return {prev} : {t}\n}}")
