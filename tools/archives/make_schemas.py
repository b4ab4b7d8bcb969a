"""Write pyjit/archive/schemas.txt: torch's operator schemas for the kinds pyjit's
registry runs, so that the archive frontend picks the overload torch picks and
knows what it returns without importing torch.

The schemas are those of pyjit/ops/torch_schemas.txt (torch's whole list, written
by tools/schemas/make_torch_schemas.py), in torch's order, so this needs no torch:
run it after adding operators:  python tools/archives/make_schemas.py

torchvision's operators are not in torch's list: their schemas, as torchvision
0.29 declares them, are the family's own (``pyjit.ops.vision.SCHEMAS``), and are
written after torch's.
"""

import os
import sys

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
    from pyjit.ops.coverage import SCHEMAS, torch_schemas
    kinds = set(default_registry.kinds()) | EXTRA
    version = SCHEMAS.read_text(encoding="utf-8").split()[2].rstrip(":")
    lines = []
    for s in torch_schemas():
        # The out= overloads come after the others in torch's order, so they are
        # only chosen for a call that passes out= (torch.nn.functional.normalize
        # has one, on a path its default never takes).
        if s.kind not in kinds:
            continue
        lines.append(s.text)
    from pyjit.ops.vision import SCHEMAS as VISION
    lines += VISION.values()
    path = os.path.join(ROOT, "pyjit", "archive", "schemas.txt")
    with open(path, "w") as f:
        f.write(f"# torch {version} operator schemas for the kinds pyjit "
                "runs; written by tools/archives/make_schemas.py\n")
        f.write("\n".join(lines) + "\n")
    print(f"{len(lines)} schemas -> {path}")


if __name__ == "__main__":
    main()
