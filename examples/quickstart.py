import pyjit


@pyjit.script
def collatz_steps(n: int) -> int:
    steps = 0
    while n != 1:
        n = n // 2 if n % 2 == 0 else 3 * n + 1
        steps += 1
    return steps


print(collatz_steps(27))        # 111, computed by the interpreter
print(collatz_steps.graph)      # the graph, in the text format torch prints
print(collatz_steps.code)       # after the seed's passes, and the instruction listing

# Graphs that torch printed run too, without torch:
fib = pyjit.Function(pyjit.parse_ir(open("examples/fib.ir").read()))
print(fib(30))                  # 832040
