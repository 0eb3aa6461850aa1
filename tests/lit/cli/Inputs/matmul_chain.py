"""Prints a TTIR function of N 32x32 matmuls in a chain, each by the same weight."""
import sys

n = int(sys.argv[1])
t = "tensor<32x32xf32>"
print(f"func.func @main(%a: {t}, %w: {t}) -> {t} {{")
prev = "%a"
for i in range(n):
    print(f'  %v{i} = "ttir.matmul"({prev}, %w) : ({t}, {t}) -> {t}')
    prev = f"%v{i}"
print(f"  return {prev} : {t}\n}}")
