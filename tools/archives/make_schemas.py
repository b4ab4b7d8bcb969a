"""Write pyjit/archive/schemas.txt: torch's operator schemas for the kinds pyjit's
registry runs, so that the archive frontend picks the overload torch picks and
knows what it returns without importing torch.

Run with torch installed:  python tools/archives/make_schemas.py

With torchvision installed too, its operators' schemas are among torch's
(``torchvision::nms``...), and written with the others.
"""

import os
import sys

import torch

try:  # torchvision registers its operators (torch.ops.torchvision) in torch's list
    import torchvision  # noqa: F401
except ImportError:
    torchvision = None

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, ROOT)

from pyjit.registry import default_registry  # noqa: E402
import pyjit  # noqa: E402,F401  (registers the library)

# Kinds the serialized source calls that the frontend itself lowers, or that the
# archives of TransformerEncoderLayer name, kept even when the registry lacks them
# so that a missing operator is reported by name rather than as an unknown call.
EXTRA = {"aten::_transformer_encoder_layer_fwd", "aten::_native_multi_head_attention",
         "aten::is_autocast_enabled", "prim::is_nested", "aten::set_grad_enabled"}


def main() -> None:
    kinds = set(default_registry.kinds()) | EXTRA
    lines = []
    for s in torch._C._jit_get_all_schemas():
        # The out= overloads come after the others in torch's order, so they are
        # only chosen for a call that passes out= (torch.nn.functional.normalize
        # has one, on a path its default never takes).
        if s.name not in kinds:
            continue
        lines.append(str(s))
    path = os.path.join(ROOT, "pyjit", "archive", "schemas.txt")
    with open(path, "w") as f:
        f.write(f"# torch {torch.__version__.split('+')[0]} operator schemas for the kinds pyjit "
                "runs; written by tools/archives/make_schemas.py\n")
        f.write("\n".join(lines) + "\n")
    print(f"{len(lines)} schemas -> {path}")


if __name__ == "__main__":
    main()
