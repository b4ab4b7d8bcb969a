"""Make the models of ``pyjit bench --models`` with torch: script and save them.

    python bench/models/generate.py                 # every model
    python bench/models/generate.py resnet18 lstm   # these
    python bench/models/generate.py --small         # the small ones, committed here

A small model's archive is written here (bench/models/, committed); a big one's
into the cache directory (``$PYJIT_BENCH_MODELS``, else ``~/.cache/pyjit/models``),
never committed (resnet18's is 45 MB).  The models and their seeds are
:data:`pyjit.benchmarks.models.MODELS`: the same weights every time.
"""
import argparse

from pyjit.benchmarks.models import MODELS, generate


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("names", nargs="*", help=f"models (default all): {', '.join(MODELS)}")
    p.add_argument("--small", action="store_true", help="only the small, committed models")
    ns = p.parse_args()
    names = ns.names or [n for n, m in MODELS.items() if m.small or not ns.small]
    for path in generate(names):
        print(f"wrote {path} ({path.stat().st_size / 1e6:.1f} MB)")


if __name__ == "__main__":
    main()
