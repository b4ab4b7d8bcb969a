# The source of examples/fib.ir, which was made with:
#   python -c "import torch, fib; print(torch.jit.script(fib.fib).graph, end='')"
# (the path in its source comments shortened to examples/fib.py).


def fib(n: int) -> int:
    a, b = 0, 1
    for _ in range(n):
        a, b = b, a + b
    return a
